# The flags the image is run with, as docs/operations.md ("Container image") runs it. Sourced by
# scripts/image-test.sh, which runs the image so; test/deploy/image-flags.test.ts holds the
# Kubernetes manifests to the same user, capabilities and PID namespace.

# Report-only, as the image's own user (uid 10001, no --user): no capability, nothing it may gain.
image_report_only=(--read-only --cap-drop=ALL --security-opt no-new-privileges)

# Deleting: root with the five capabilities only (read every home, open other users' WAL
# databases, read other users' /proc/<pid>/fd, delete and run git as each item's owner), with no
# AppArmor profile (the runtime's default one hides other containers' and the host's /proc).
image_root=(--user 0:0 --read-only --cap-drop=ALL
  --cap-add=DAC_READ_SEARCH --cap-add=DAC_OVERRIDE --cap-add=SYS_PTRACE --cap-add=SETUID --cap-add=SETGID
  --security-opt no-new-privileges --security-opt apparmor=unconfined)

# ... in the host's PID namespace, without which the process check sees none of the agents and
# every dead-looking item is refused with liveness-unknown.
image_host_pid=(--pid=host)

# ... and the host's machine id: Claude Code's session records name it (their pid domain), so a
# record of the host's processes is told from another machine's.
image_host_ids=(-v /etc/machine-id:/etc/machine-id:ro)
