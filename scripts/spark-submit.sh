#!/usr/bin/env bash
# Runs the bronze or the silver job on any Spark 4.1 installation (standalone, YARN, Kubernetes,
# local) from the cluster jar, through that installation's own spark-submit.
#
#   scripts/spark-submit.sh [SPARK-SUBMIT OPTIONS...] bronze|silver (--config PATH | --config-inline YAML) [--json]
#
# The first argument that is exactly "bronze" or "silver" is the job. Options before it go to
# spark-submit unchanged: --master, --deploy-mode, and every --conf, S3A settings included
# (--conf spark.hadoop.fs.s3a.connection.maximum=200 ...); the jobs keep them. Arguments after
# the job name go to the job. Exit code: the job's (0 ok, 1 failure or rejected batch, 2
# configuration error); stdout: the job's one line.
#
# Spark comes from $SPARK_HOME, or from the spark-submit on PATH. The script adds:
#   - the cluster jar: $REPLAYSAFE_CLUSTER_JAR, or silver/target/replaysafe-silver-*-cluster.jar
#     (built with Maven when missing);
#   - Delta (--packages io.delta:delta-spark_2.13:<the build's version>) when $SPARK_HOME/jars has
#     no delta-spark jar;
#   - hadoop-aws of the installation's own Hadoop version (--packages), when $SPARK_HOME/jars has
#     none and REPLAYSAFE_S3A is not "off": S3A must match hadoop-client exactly, so it cannot be
#     in the jar;
#   - with REPLAYSAFE_FORWARD_AWS_ENV=1, the AWS_* variables of this shell (credentials, region,
#     profile) as executor and YARN application-master environment, for clusters without instance
#     roles, through a mode-600 properties file that is deleted when spark-submit returns: never
#     on a command line. Spark redacts secrets and tokens in its UI, but prefer roles.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

die() { echo "spark-submit.sh: $*" >&2; exit 2; }
usage="usage: scripts/spark-submit.sh [SPARK-SUBMIT OPTIONS...] bronze|silver (--config PATH | --config-inline YAML) [--json]"

submit_opts=()
job=""
while [ $# -gt 0 ]; do
  case "$1" in
    bronze|silver) job="$1"; shift; break ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) submit_opts+=("$1"); shift ;;
  esac
done
[ -n "$job" ] || die "no job named; $usage"
case "$job" in
  bronze) main_class=io.replaysafe.jobs.BronzeJob ;;
  silver) main_class=io.replaysafe.jobs.SilverJob ;;
esac

if [ -z "${SPARK_HOME:-}" ]; then
  if command -v spark-submit >/dev/null 2>&1; then
    SPARK_HOME="$(cd "$(dirname "$(readlink -f "$(command -v spark-submit)")")/.." && pwd)"
  else
    die "no Spark installation: set SPARK_HOME or put spark-submit on PATH (Spark 4.1, Scala 2.13)"
  fi
fi
[ -x "$SPARK_HOME/bin/spark-submit" ] || die "$SPARK_HOME/bin/spark-submit is missing or not executable"
export SPARK_HOME

jar_of() { # the first jar in $SPARK_HOME/jars whose name starts with $1, or nothing
  find "$SPARK_HOME/jars" -maxdepth 1 -name "$1*.jar" -print -quit 2>/dev/null || true
}
if scala_jar="$(jar_of scala-library-)" && [ -n "$scala_jar" ]; then
  case "$(basename "$scala_jar")" in
    scala-library-2.13.*) ;;
    *) die "$SPARK_HOME runs $(basename "$scala_jar" .jar); the cluster jar needs Scala 2.13 (Spark 4.1)" ;;
  esac
fi

pom_property() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" "$ROOT/pom.xml" | head -1; }
version="$(sed -n 's:^  <version>\(.*\)</version>:\1:p' "$ROOT/pom.xml" | head -1)"
JAR="${REPLAYSAFE_CLUSTER_JAR:-$ROOT/silver/target/replaysafe-silver-$version-cluster.jar}"
if [ ! -f "$JAR" ]; then
  [ -z "${REPLAYSAFE_CLUSTER_JAR:-}" ] || die "REPLAYSAFE_CLUSTER_JAR=$JAR does not exist"
  echo "spark-submit.sh: building the cluster jar..." >&2
  (cd "$ROOT" && { mvn -q -B -o -DskipTests package 1>&2 2>/dev/null || mvn -q -B -DskipTests package 1>&2; })
fi

packages=()
if [ -z "$(jar_of delta-spark_)" ]; then
  packages+=("io.delta:delta-spark_$(pom_property scala.binary):$(pom_property delta.version)")
fi
if [ "${REPLAYSAFE_S3A:-on}" != off ] && [ -z "$(jar_of hadoop-aws-)" ]; then
  client="$(jar_of hadoop-client-api-)"
  [ -n "$client" ] || die "cannot tell the Hadoop version of $SPARK_HOME (no jars/hadoop-client-api-*.jar); set REPLAYSAFE_S3A=off and add hadoop-aws yourself"
  hadoop_version="$(basename "$client" .jar)"
  packages+=("org.apache.hadoop:hadoop-aws:${hadoop_version#hadoop-client-api-}")
fi
if [ ${#packages[@]} -gt 0 ]; then
  submit_opts+=(--packages "$(IFS=,; echo "${packages[*]}")")
fi

if [ "${REPLAYSAFE_FORWARD_AWS_ENV:-0}" = 1 ]; then
  # Credentials never go on a command line (ps, /proc, pod specs, shell history): they go into a
  # properties file only this user can read, removed when spark-submit returns. --properties-file
  # replaces spark-defaults.conf, so the file starts with that (or with the caller's own
  # --properties-file) and adds the AWS_* variables of this shell as executor and YARN
  # application-master environment.
  props_dir="$(mktemp -d "${TMPDIR:-/tmp}/replaysafe-submit.XXXXXXXX")"
  chmod 700 "$props_dir"
  trap 'rm -rf "$props_dir"' EXIT
  props="$props_dir/spark.properties"
  (umask 077 && : > "$props")
  base="${SPARK_CONF_DIR:-$SPARK_HOME/conf}/spark-defaults.conf"
  kept=()
  i=0
  while [ $i -lt ${#submit_opts[@]} ]; do
    case "${submit_opts[$i]}" in
      --properties-file) base="${submit_opts[$((i + 1))]:-}"; i=$((i + 2)); continue ;;
      --properties-file=*) base="${submit_opts[$i]#--properties-file=}"; i=$((i + 1)); continue ;;
    esac
    kept+=("${submit_opts[$i]}")
    i=$((i + 1))
  done
  submit_opts=(${kept[@]+"${kept[@]}"})
  if [ -f "$base" ]; then
    cat "$base" >> "$props"
    echo >> "$props"
  fi
  while IFS= read -r name; do
    value="${!name}"
    value="${value//\\/\\\\}" # a properties file reads a backslash as an escape
    printf 'spark.executorEnv.%s=%s\nspark.yarn.appMasterEnv.%s=%s\n' "$name" "$value" "$name" "$value" >> "$props"
  done < <(compgen -e | grep -E '^AWS_[A-Z0-9_]+$' || true)
  submit_opts+=(--properties-file "$props")
fi

status=0
"$SPARK_HOME/bin/spark-submit" \
  --name "replaysafe-$job" \
  ${submit_opts[@]+"${submit_opts[@]}"} \
  --class "$main_class" \
  "$JAR" "$@" || status=$?
exit "$status"
