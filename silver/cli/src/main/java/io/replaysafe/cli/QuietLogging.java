package io.replaysafe.cli;

import java.nio.file.Path;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.appender.ConsoleAppender;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.builder.api.AppenderComponentBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilderFactory;
import org.apache.logging.log4j.core.config.builder.impl.BuiltConfiguration;

/**
 * The CLI's default logging: Spark's, Hadoop's and Delta's warnings go to a log file under the
 * working directory instead of the terminal, because a command run every 15 minutes should print
 * its result and nothing else. replaysafe's own warnings still reach stderr. {@code --verbose}
 * keeps everything on stderr (the packaged {@code log4j2.properties}).
 */
final class QuietLogging {
  /** Where the log file goes: this system property, else {@code replaysafe-logs} in the cwd. */
  static final String LOG_DIR_PROPERTY = "replaysafe.logDir";

  static final String LOG_DIR_DEFAULT = "replaysafe-logs";
  static final String LOG_FILE = "replaysafe.log";

  private QuietLogging() {}

  static Path logFile() {
    return Path.of(System.getProperty(LOG_DIR_PROPERTY, LOG_DIR_DEFAULT), LOG_FILE)
        .toAbsolutePath();
  }

  /**
   * Routes every log event at WARN and above to {@code file} (created on the first event, rolled at
   * 10 MB, five kept), and replaysafe's own warnings to stderr as well.
   */
  static void install(Path file) {
    ConfigurationBuilder<BuiltConfiguration> b =
        ConfigurationBuilderFactory.newConfigurationBuilder();
    b.setStatusLevel(Level.ERROR);
    b.setConfigurationName("replaysafe-quiet");
    AppenderComponentBuilder rolling =
        b.newAppender("file", "RollingFile")
            .addAttribute("fileName", file.toString())
            .addAttribute("filePattern", file + ".%i")
            .addAttribute("createOnDemand", true)
            .add(
                b.newLayout("PatternLayout")
                    .addAttribute("pattern", "%d{yyyy-MM-dd HH:mm:ss.SSS} %p %c{1}: %m%n"))
            .addComponent(
                b.newComponent("Policies")
                    .addComponent(
                        b.newComponent("SizeBasedTriggeringPolicy").addAttribute("size", "10MB")))
            .addComponent(b.newComponent("DefaultRolloverStrategy").addAttribute("max", 5));
    b.add(rolling);
    b.add(
        b.newAppender("console", "Console")
            .addAttribute("target", ConsoleAppender.Target.SYSTEM_ERR)
            .add(
                b.newLayout("PatternLayout")
                    .addAttribute("pattern", "%d{HH:mm:ss} %p %c{1}: %m%n")));
    b.add(b.newRootLogger(Level.WARN).add(b.newAppenderRef("file")));
    b.add(
        b.newLogger("io.replaysafe", Level.WARN)
            .add(b.newAppenderRef("file"))
            .add(b.newAppenderRef("console"))
            .addAttribute("additivity", false));
    Configurator.reconfigure(b.build());
  }
}
