# Sourced by ./sluice and .ci/run: exports JAVA_HOME pointing at a JDK 25 (or newer), or exits
# with a message saying what to install.

sluice_java_major() {
  "$1/bin/java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p'
}

sluice_find_jdk() {
  local candidate major
  for candidate in "${JAVA_HOME:-}" \
    "$(dirname "$(dirname "$(readlink -f "$(command -v java 2>/dev/null || echo /nonexistent)")")")" \
    /usr/lib/jvm/temurin-25-jdk-* /usr/lib/jvm/*-25* /usr/lib/jvm/*; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/java" ] && [ -x "$candidate/bin/javac" ] || continue
    major=$(sluice_java_major "$candidate")
    if [ -n "$major" ] && [ "$major" -ge 25 ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

if ! SLUICE_JDK=$(sluice_find_jdk); then
  cat >&2 <<'MSG'
Sluice needs a JDK 25 (or newer) and found none: not in JAVA_HOME, not on PATH, not in /usr/lib/jvm.
Install one, for example Eclipse Temurin 25 (https://adoptium.net, or the temurin-25-jdk package),
then run again or point JAVA_HOME at it.
MSG
  exit 1
fi
export JAVA_HOME="$SLUICE_JDK"
export PATH="$JAVA_HOME/bin:$PATH"
