# Sourced by scripts/image-base.sh and scripts/image-test.sh: podman as it builds and runs images
# on the project's machines (Debian's podman, as root), with a storage of the project's own under
# the cache folder, so that what these scripts build and prune is never mixed with other images.
# - the overlay storage driver where the kernel mounts an overlay there, else vfs (a full copy of
#   the tree for every layer and container: about 12 GB and three times the build time here);
# - runc; no default ulimits (podman's default raises the open-file limit above the machine's
#   hard limit, and the container fails to start).
#   IMAGE_CACHE   the cache folder (default /var/cache/agent-janitor-image)

IMAGE_CACHE=${IMAGE_CACHE:-/var/cache/agent-janitor-image}
mkdir -p "$IMAGE_CACHE"
if [ ! -f "$IMAGE_CACHE/containers.conf" ]; then
  printf '[containers]\ndefault_ulimits = []\n' >"$IMAGE_CACHE/containers.conf"
fi
export CONTAINERS_CONF="$IMAGE_CACHE/containers.conf"

storage_driver() {
  local probe driver=vfs
  probe=$(mktemp -d "$IMAGE_CACHE/overlay-probe.XXXXXX")
  mkdir "$probe/lower" "$probe/upper" "$probe/work" "$probe/merged"
  if mount -t overlay overlay -o "lowerdir=$probe/lower,upperdir=$probe/upper,workdir=$probe/work" \
    "$probe/merged" 2>/dev/null; then
    umount "$probe/merged"
    driver=overlay
  fi
  rm -rf "$probe"
  echo "$driver"
}
IMAGE_STORAGE_DRIVER=${IMAGE_STORAGE_DRIVER:-$(storage_driver)}

pm() {
  local at="$IMAGE_CACHE/$IMAGE_STORAGE_DRIVER"
  podman --root "$at/storage" --runroot "$at/run" --tmpdir "$at/tmp" \
    --storage-driver "$IMAGE_STORAGE_DRIVER" --runtime runc --events-backend file "$@"
}

# The Dockerfile's base image (its NODE_IMAGE default), as docker.io names it.
dockerfile_base() {
  local image
  image=$(sed -n 's/^ARG NODE_IMAGE=//p' "$1")
  [ -n "$image" ] || { echo "$1: no ARG NODE_IMAGE=<image> line" >&2; return 1; }
  echo "docker.io/library/$image"
}
