package io.replaysafe.common.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.replaysafe.common.ConfigException;
import org.junit.jupiter.api.Test;

/** Config errors name the key and the rule, never a value that may be a secret. */
class ConfigSecretsTest {
  static final String SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzCanary";
  static final String REST =
      "source:\n  path: /l\n  schema: \"a INT\"\nbronze:\n  path: /b\n  checkpoint: /c\n";

  @Test
  void aSecretAsTheValueOfATypedKeyIsNotEchoed() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p.yaml", "name: x\nstorage: {pathStyleAccess: " + SECRET + "}\n" + REST))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "Pipeline file p.yaml: 'storage.pathStyleAccess' has the wrong shape: expected true"
                + " or false (value not shown)");
  }

  @Test
  void aSecretInAnUnknownKeyIsNotEchoed() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p.yaml", "name: x\nstorage: {secretAccessKey: " + SECRET + "}\n" + REST))
        .hasMessageStartingWith("Pipeline file p.yaml: unknown key 'storage.secretAccessKey';")
        .message()
        .doesNotContain(SECRET);
  }

  @Test
  void anEndpointWithCredentialsIsRefusedWithoutEchoingThem() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p.yaml",
                    "name: x\nstorage: {endpoint: \"http://AKID:"
                        + SECRET.replace("/", "%2F")
                        + "@127.0.0.1:9000\"}\n"
                        + REST))
        .hasMessage(
            "Pipeline file p.yaml: storage.endpoint holds credentials (user:secret@); remove them"
                + " and give credentials through the AWS default chain (environment, profile,"
                + " role)");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "p.yaml", "name: x\nstorage: {endpoint: \"" + SECRET + " x\"}\n" + REST))
        .hasMessage(
            "Pipeline file p.yaml: storage.endpoint is not a URL (value not shown); write it as"
                + " http://host:port");
  }

  @Test
  void brokenYamlNamesTheLineNotTheText() {
    assertThatThrownBy(
            () ->
                ConfigLoader.parse("p.yaml", "name: x\nstorage:\n  endpoint: " + SECRET + ": [\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("Pipeline file p.yaml is not valid YAML at line ")
        .hasMessageEndingWith("(text not shown)")
        .message()
        .doesNotContain(SECRET);
  }
}
