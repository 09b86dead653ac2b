package dev.waymark.app;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.rolling.FixedWindowRollingPolicy;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy;
import ch.qos.logback.core.spi.ContextAwareBase;
import ch.qos.logback.core.status.NopStatusListener;
import ch.qos.logback.core.util.FileSize;
import org.slf4j.Logger;

/**
 * Logging set up in code rather than from an XML file: every line to {@code waymark.log} in the
 * directory {@link Logging#start} chose (three rolled files of 10 MB), nothing to the terminal, JGit
 * at WARN. Logback finds it through its service loader before it would look for a file, so the XML
 * parser behind {@code logback.xml} is never loaded: that took 0.1 to 0.2 s of every headless command's
 * start (measured by the process bench's class-load timeline).
 */
@ConfiguratorRank(value = ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class LogConfigurator extends ContextAwareBase implements Configurator {
  @Override
  public ExecutionStatus configure(LoggerContext context) {
    context.getStatusManager().add(new NopStatusListener()); // logback's own status never reaches the terminal
    String dir = System.getProperty("waymark.logDir", System.getProperty("java.io.tmpdir"));

    RollingFileAppender<ILoggingEvent> file = new RollingFileAppender<>();
    file.setContext(context);
    file.setName("FILE");
    file.setFile(dir + "/waymark.log");

    FixedWindowRollingPolicy rolling = new FixedWindowRollingPolicy();
    rolling.setContext(context);
    rolling.setParent(file);
    rolling.setFileNamePattern(dir + "/waymark.%i.log");
    rolling.setMinIndex(1);
    rolling.setMaxIndex(3);
    rolling.start();
    file.setRollingPolicy(rolling);

    SizeBasedTriggeringPolicy<ILoggingEvent> size = new SizeBasedTriggeringPolicy<>();
    size.setContext(context);
    size.setMaxFileSize(FileSize.valueOf("10MB"));
    size.start();
    file.setTriggeringPolicy(size);

    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%d{ISO8601} %-5level [%thread] %logger{36} - %msg%n");
    encoder.start();
    file.setEncoder(encoder);
    file.start();

    context.getLogger("org.eclipse.jgit").setLevel(Level.WARN);
    ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.INFO);
    root.addAppender(file);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
