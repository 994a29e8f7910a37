#!/usr/bin/env bash
# Runs sbt for this build: the installed `sbt` if there is one, otherwise the sbt launcher jar, fetched once
# from Maven Central with `mvn` into a cache folder.
#
#   ./sbt test                   run every test
#   ./sbt "examples/run"          any sbt command
#
# Environment:
#   RAPIER_SBT_CACHE   where the launcher jar is kept (default: ~/.cache/rapier/sbt-launch)
#   RAPIER_USE_LAUNCHER=1  use the launcher even if `sbt` is installed
#   SBT_JAVA_OPTS      JVM options for sbt itself (default: -Xms1g -Xmx3g -Xss4m)
#   RAPIER_SBT_DIR     the build to run sbt in (default: this one), e.g. published-test/
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "${RAPIER_SBT_DIR:-$here}"

if command -v sbt >/dev/null 2>&1 && [ -z "${RAPIER_USE_LAUNCHER:-}" ]; then
  exec sbt "$@"
fi

version="$(sed -n 's/^sbt\.version *= *\([^ ]*\).*/\1/p' "$here/project/build.properties")"
if [ -z "$version" ]; then
  echo "sbt: cannot read sbt.version from project/build.properties" >&2
  exit 2
fi

cache="${RAPIER_SBT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rapier/sbt-launch}"
jar="$cache/sbt-launch-$version.jar"

if [ ! -s "$jar" ]; then
  if ! command -v mvn >/dev/null 2>&1; then
    echo "sbt: neither 'sbt' nor 'mvn' is installed; install one of them (e.g. apt-get install -y maven)" >&2
    exit 2
  fi
  if ! command -v java >/dev/null 2>&1; then
    echo "sbt: 'java' is not on the PATH; install a JDK 17 or newer" >&2
    exit 2
  fi
  mkdir -p "$cache"
  echo "sbt: fetching org.scala-sbt:sbt-launch:$version from Maven Central into $cache" >&2
  mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy \
    -Dartifact="org.scala-sbt:sbt-launch:$version" -DoutputDirectory="$cache" >&2
  if [ ! -s "$jar" ]; then
    echo "sbt: the launcher jar was not fetched ($jar is missing)" >&2
    exit 2
  fi
fi

# The launcher takes JVM system properties only as JVM options, so -Dkey=value arguments move there.
jvm_opts=()
read -r -a default_opts <<< "${SBT_JAVA_OPTS:--Xms1g -Xmx3g -Xss4m}"
jvm_opts+=("${default_opts[@]}")
sbt_args=()
for arg in "$@"; do
  case "$arg" in
    -D*) jvm_opts+=("$arg") ;;
    -J*) jvm_opts+=("${arg#-J}") ;;
    *) sbt_args+=("$arg") ;;
  esac
done

exec java "${jvm_opts[@]}" -jar "$jar" "${sbt_args[@]+"${sbt_args[@]}"}"
