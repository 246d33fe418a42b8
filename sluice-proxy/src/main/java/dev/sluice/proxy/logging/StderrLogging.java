package dev.sluice.proxy.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * The proxy's application logging: one line per event on stderr at INFO, set up in code. Logback
 * finds it through {@code ServiceLoader} before its own configurators; a {@code logback.xml} would
 * cost its XML configurator (Joran, a model and the JDK's SAX parser: about 400 classes and a few
 * hundred milliseconds at start). Logback's own configuration still wins when one is given: the
 * {@code logback.configurationFile} system property, or a {@code logback-test.xml} or {@code
 * logback.xml} on the class path.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class StderrLogging extends ContextAwareBase implements Configurator {
  /** The line format: ISO-8601 time with offset, level, thread, abbreviated logger, message. */
  public static final String PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{20} - %msg%n";

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (givenElsewhere()) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
    appender.setContext(context);
    appender.setName("stderr");
    appender.setTarget("System.err");
    appender.setEncoder(encoder);
    appender.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.INFO);
    root.addAppender(appender);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /** Whether Logback's own configuration lookup would find a file. */
  static boolean givenElsewhere() {
    ClassLoader loader = StderrLogging.class.getClassLoader();
    return System.getProperty("logback.configurationFile") != null
        || loader.getResource("logback-test.xml") != null
        || loader.getResource("logback.xml") != null;
  }
}
