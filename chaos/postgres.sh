# Shared by the chaos scripts, sourced from the repository's root: the newest PostgreSQL installed
# (pgbin) and as_pg, which runs a command as the postgres user when the script runs as root.
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as_pg() { if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi; }
