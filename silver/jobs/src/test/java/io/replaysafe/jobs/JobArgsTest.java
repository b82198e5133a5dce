package io.replaysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.ConfigException;
import org.junit.jupiter.api.Test;

/** The cluster jobs' arguments as a contract: what is accepted, and what each mistake says. */
class JobArgsTest {
  @Test
  void aConfigPathOfAnyKind() {
    assertThat(JobArgs.parse("bronze", "--config", "/Workspace/Users/a/orders.yaml"))
        .isEqualTo(new JobArgs("/Workspace/Users/a/orders.yaml", null, false, false));
    assertThat(JobArgs.parse("bronze", "-c", "s3a://conf/orders.yaml", "--json"))
        .isEqualTo(new JobArgs("s3a://conf/orders.yaml", null, true, false));
    assertThat(JobArgs.parse("silver", "--json", "--config=dbfs:/replaysafe/orders.yaml"))
        .isEqualTo(new JobArgs("dbfs:/replaysafe/orders.yaml", null, true, false));
  }

  @Test
  void anInlineConfig() {
    JobArgs args = JobArgs.parse("silver", "--config-inline", "name: x\nsource: {}");
    assertThat(args).isEqualTo(new JobArgs(null, "name: x\nsource: {}", false, false));
    assertThat(args.origin()).isEqualTo("--config-inline");
  }

  @Test
  void helpNeedsNoConfig() {
    assertThat(JobArgs.parse("bronze", "--help")).isEqualTo(new JobArgs(null, null, false, true));
  }

  @Test
  void noConfigIsAUsageError() {
    assertThatThrownBy(() -> JobArgs.parse("bronze", "--json"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Cannot start the bronze job: the pipeline file is missing; give --config PATH or"
                + " --config-inline YAML. Usage: bronze (--config PATH | --config-inline YAML)"
                + " [--json]");
  }

  @Test
  void bothConfigsAreAUsageError() {
    assertThatThrownBy(() -> JobArgs.parse("silver", "--config", "a", "--config-inline", "b"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("Cannot start the silver job: Error: --config=PATH, ")
        .hasMessageEndingWith(
            "are mutually exclusive (specify only one). Usage: silver (--config PATH |"
                + " --config-inline YAML) [--json]");
  }

  @Test
  void unknownOptionsAndStrayValuesAreUsageErrors() {
    assertThatThrownBy(() -> JobArgs.parse("bronze", "--config", "a", "--jsn"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("Cannot start the bronze job: Unknown option: '--jsn'");
    assertThatThrownBy(() -> JobArgs.parse("bronze", "--config", "a", "extra"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("Cannot start the bronze job: Unmatched argument at index 2:");
    assertThatThrownBy(() -> JobArgs.parse("bronze", "--config"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("Cannot start the bronze job: Missing required parameter");
  }
}
