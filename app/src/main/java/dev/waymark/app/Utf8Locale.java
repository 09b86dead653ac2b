package dev.waymark.app;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
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
  /**
   * The arguments' bytes as the shell gave them, each in Base64, comma-separated: the JVM decoded
   * them in the locale it started in, so "projé" reached main as "proj??", and a command line
   * rebuilt from that names another directory. The relaunched one decodes them as UTF-8.
   */
  static final String ARGUMENTS = "WAYMARK_UTF8_ARGUMENTS";

  private Utf8Locale() {}

  /** The arguments the relaunched Waymark was given, as they were typed; {@code args} elsewhere. */
  static String[] arguments(String[] args) {
    return arguments(args, System.getenv(MARK), System.getenv(ARGUMENTS));
  }

  static String[] arguments(String[] args, String mark, String encoded) {
    if (mark == null || encoded == null) {
      return args;
    }
    String[] parts = encoded.isEmpty() ? new String[0] : encoded.split(",", -1);
    if (parts.length != args.length) {
      return args; // not ours to read
    }
    String[] typed = new String[parts.length];
    for (int i = 0; i < parts.length; i++) {
      typed[i] = new String(Base64.getDecoder().decode(parts[i]), StandardCharsets.UTF_8);
    }
    return typed;
  }

  /** {@code raw}'s last {@code count} NUL-terminated arguments (a /proc/PID/cmdline), each in Base64. */
  static Optional<String> lastArguments(byte[] raw, int count) {
    List<String> tokens = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < raw.length; i++) {
      if (raw[i] == 0) {
        tokens.add(Base64.getEncoder().encodeToString(Arrays.copyOfRange(raw, start, i)));
        start = i + 1;
      }
    }
    if (tokens.size() < count) {
      return Optional.empty();
    }
    return Optional.of(String.join(",", tokens.subList(tokens.size() - count, tokens.size())));
  }

  /** The exit code of the relaunched Waymark, or empty when this one can go on. */
  static Optional<Integer> relaunchIfNeeded(String[] args) {
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
      lastArguments(Files.readAllBytes(Path.of("/proc/self/cmdline")), args.length)
          .ifPresent(encoded -> builder.environment().put(ARGUMENTS, encoded));
    } catch (IOException | RuntimeException unreadable) {
      // the arguments go as the JVM decoded them: ASCII ones are whole
    }
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
