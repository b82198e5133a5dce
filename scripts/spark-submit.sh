#!/usr/bin/env bash
# Runs the bronze or the silver job on any Spark 4.1 or 4.2 installation (standalone, YARN, Kubernetes,
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
#   - the cluster jar: $REPLAYSAFE_CLUSTER_JAR, or silver/jobs/target/replaysafe-jobs-*-cluster.jar
#     (built with Maven when missing);
#   - Delta (--packages io.delta:delta-spark_2.13:<the build's version>) when $SPARK_HOME/jars has
#     no delta-spark jar;
#   - hadoop-aws of the installation's own Hadoop version (--packages), when $SPARK_HOME/jars has
#     none and REPLAYSAFE_S3A is not "off": S3A must match hadoop-client exactly, so it cannot be
#     in the jar;
#   - with REPLAYSAFE_FORWARD_AWS_ENV=1, the AWS_* variables of this shell (credentials, region,
#     profile) as executor and YARN application-master environment, for clusters without instance
#     roles. They go through a mode-600 properties file, never the command line, and reach each
#     executor's environment through Spark's RPC; Spark redacts secrets and tokens in its UI. A
#     --properties-file you pass is merged into that file. Prefer roles where there are any.
#     Refused (exit 2, nothing submitted) in cluster deploy mode and on Kubernetes, where Spark
#     itself would put them on a process line or in a spec: a standalone or YARN cluster-mode
#     driver is started with every setting as a -D option of its JVM (ps on that node shows it),
#     and Kubernetes writes spark.executorEnv.* into the pods' specs (kubectl get pod -o yaml).
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
  bronze) main_class=io.replaysafe.jobs.BronzeMain ;;
  silver) main_class=io.replaysafe.jobs.SilverMain ;;
esac

if [ -z "${SPARK_HOME:-}" ]; then
  if command -v spark-submit >/dev/null 2>&1; then
    SPARK_HOME="$(cd "$(dirname "$(readlink -f "$(command -v spark-submit)")")/.." && pwd)"
  else
    die "no Spark installation: set SPARK_HOME or put spark-submit on PATH (Spark 4.1 or 4.2, Scala 2.13)"
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
    *) die "$SPARK_HOME runs $(basename "$scala_jar" .jar); the cluster jar needs Scala 2.13 (Spark 4.1 or 4.2)" ;;
  esac
fi

pom_property() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" "$ROOT/pom.xml" | head -1; }
version="$(sed -n 's:^  <version>\(.*\)</version>:\1:p' "$ROOT/pom.xml" | head -1)"
JAR="${REPLAYSAFE_CLUSTER_JAR:-$ROOT/silver/jobs/target/replaysafe-jobs-$version-cluster.jar}"
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

# Where forwarding the shell's AWS variables would put them in a process line or a spec: cluster
# deploy mode (the driver's JVM gets every setting as -D on a cluster node) or a Kubernetes master
# (executor environment becomes pod spec env). Prints the reason, or nothing.
exposing_submit() {
  local i=0 opt next deploy="" master=""
  while [ $i -lt ${#submit_opts[@]} ]; do
    opt="${submit_opts[$i]}"; next="${submit_opts[$((i + 1))]:-}"
    case "$opt" in
      --deploy-mode) deploy="$next" ;;
      --deploy-mode=*) deploy="${opt#--deploy-mode=}" ;;
      --master) master="$next" ;;
      --master=*) master="${opt#--master=}" ;;
      --conf) case "$next" in spark.submit.deployMode=*) deploy="${next#*=}" ;; spark.master=*) master="${next#*=}" ;; esac ;;
      --conf=spark.submit.deployMode=*) deploy="${opt#--conf=spark.submit.deployMode=}" ;;
      --properties-file)
        if [ -r "$next" ]; then
          local line
          line="$(grep -E '^[[:space:]]*spark\.submit\.deployMode[[:space:]=:]' "$next" | tail -1 || true)"
          [ -z "$line" ] || deploy="$(echo "$line" | sed -E 's/^[[:space:]]*spark\.submit\.deployMode[[:space:]=:]+//; s/[[:space:]]*$//')"
        fi ;;
    esac
    i=$((i + 1))
  done
  if [ "$deploy" = cluster ]; then
    echo "in cluster deploy mode Spark starts the driver's JVM on a cluster node with every setting, spark.executorEnv.* included, as a -D option of its command line, which ps shows to every user of that node"
  elif [ "${master#k8s://}" != "$master" ]; then
    echo "on Kubernetes Spark writes spark.executorEnv.* into the executor pods' specs, which anyone who may read pods sees"
  fi
}

if [ "${REPLAYSAFE_FORWARD_AWS_ENV:-0}" = 1 ]; then
  exposed="$(exposing_submit)"
  [ -z "$exposed" ] || die "REPLAYSAFE_FORWARD_AWS_ENV=1 refused: $exposed. Nothing was submitted. Give the cluster its own credentials instead: an instance role or IAM role for service accounts (EKS), a Kubernetes secret (--conf spark.kubernetes.driver.secretKeyRef.AWS_SECRET_ACCESS_KEY=NAME:KEY and the same for spark.kubernetes.executor.secretKeyRef.*), or fs.s3a.aws.credentials.provider on the cluster; or submit in client mode (--deploy-mode client), where the file stays on this machine."
  # Through a properties file, never --conf: a --conf value is on spark-submit's command line,
  # which every user of the machine can read (ps, /proc/PID/cmdline). mktemp creates it mode 600;
  # it is removed when spark-submit ends. A --properties-file of the caller is copied into it
  # first (spark-submit reads one), so its settings still apply.
  props="$(mktemp "${TMPDIR:-/tmp}/replaysafe-submit.XXXXXX")"
  trap 'rm -f "$props"' EXIT
  trap 'rm -f "$props"; exit 143' TERM
  trap 'rm -f "$props"; exit 130' INT
  kept=()
  user_props=""
  i=0
  while [ $i -lt ${#submit_opts[@]} ]; do
    opt="${submit_opts[$i]}"
    case "$opt" in
      --properties-file) user_props="${submit_opts[$((i + 1))]:-}"; i=$((i + 2)); continue ;;
      --properties-file=*) user_props="${opt#--properties-file=}"; i=$((i + 1)); continue ;;
    esac
    kept+=("$opt"); i=$((i + 1))
  done
  submit_opts=("${kept[@]+"${kept[@]}"}")
  if [ -n "$user_props" ]; then
    [ -r "$user_props" ] || die "--properties-file $user_props cannot be read"
    cat "$user_props" >> "$props"
    echo >> "$props"
  fi
  while IFS='=' read -r name _; do
    value="${!name//\\/\\\\}" # a backslash is an escape in a properties file
    printf 'spark.executorEnv.%s=%s\nspark.yarn.appMasterEnv.%s=%s\n' "$name" "$value" "$name" "$value" >> "$props"
  done < <(env | grep -oE '^AWS_[A-Z0-9_]+=' | tr -d = || true)
  submit_opts+=(--properties-file "$props")
  # spark-defaults.conf is read only without --properties-file unless asked for (Spark 4.x)
  [ -n "$user_props" ] || submit_opts+=(--load-spark-defaults)
  status=0
  "$SPARK_HOME/bin/spark-submit" \
    --name "replaysafe-$job" \
    "${submit_opts[@]}" \
    --class "$main_class" \
    "$JAR" "$@" || status=$?
  exit "$status"
fi

status=0
"$SPARK_HOME/bin/spark-submit" \
  --name "replaysafe-$job" \
  "${submit_opts[@]+"${submit_opts[@]}"}" \
  --class "$main_class" \
  "$JAR" "$@" || status=$?
exit "$status"
