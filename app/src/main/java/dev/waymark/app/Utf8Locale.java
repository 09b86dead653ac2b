package dev.waymark.app;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Java reads and writes file names in the encoding of the locale it started in, and takes no
 * setting for it afterwards: started with no locale (LANG and LC_ALL unset, as under cron, ssh
 * without AcceptEnv, or CI), a project file named {@code naïve.txt} cannot even be opened. So
 * Waymark started that way on Linux runs itself again, once, with {@code LC_ALL=C.UTF-8}, and
 * passes on its exit code. The launcher sets the locale itself and never gets here.
 */
final class Utf8Locale {
  static final String MARK = "WAYMARK_UTF8_RELAUNCHED";

  private Utf8Locale() {}

  /** The exit code of the relaunched Waymark, or empty when this one can go on. */
  static Optional<Integer> relaunchIfNeeded() {
    String jnu = System.getProperty("sun.jnu.encoding", "");
    boolean utf8 = isUtf8(jnu);
    if (utf8 || System.getenv(MARK) != null || !System.getProperty("os.name", "").equals("Linux")) {
      return Optional.empty();
    }
    ProcessHandle.Info info = ProcessHandle.current().info();
    if (info.command().isEmpty() || info.arguments().isEmpty()) {
      return Optional.empty(); // cannot tell how this JVM was started: go on as we are
    }
    List<String> command = new ArrayList<>();
    command.add(info.command().get());
    command.addAll(List.of(info.arguments().get()));
    ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
    builder.environment().put("LC_ALL", "C.UTF-8");
    builder.environment().put(MARK, "1");
    try {
      Process child = builder.start();
      // the terminal sends Ctrl+C and friends to both: the child decides, this one only waits
      for (String name : List.of("INT", "QUIT", "TSTP")) {
        try {
          Signal.handle(new Signal(name), SignalHandler.SIG_IGN);
        } catch (IllegalArgumentException unsupported) {
          // not a signal on this system
        }
      }
      Runtime.getRuntime().addShutdownHook(new Thread(child::destroy));
      return Optional.of(child.waitFor());
    } catch (Exception e) {
      return Optional.empty(); // relaunching failed: go on, names with non-ASCII letters may fail
    }
  }

  static boolean isUtf8(String encoding) {
    try {
      return Charset.forName(encoding).equals(StandardCharsets.UTF_8);
    } catch (RuntimeException unknown) {
      return false;
    }
  }
}
