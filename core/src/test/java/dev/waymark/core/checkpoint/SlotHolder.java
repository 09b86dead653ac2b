package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.shell.CommandSlot;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Another Waymark, as far as the command slot goes: a separate JVM that takes the slot of the lock
 * file named by its one argument, says {@code held}, and keeps it until killed. A test stops it
 * (SIGSTOP) to play a Waymark suspended with Ctrl+Z.
 */
public final class SlotHolder {
  private SlotHolder() {}

  public static void main(String[] args) throws Exception {
    CommandSlot.Held held = new CommandSlot(Path.of(args[0])).take(10_000).orElseThrow();
    System.out.println("held");
    System.out.flush();
    new CountDownLatch(1).await(); // holds the slot until the test stops or kills it
    held.close();
  }

  /** Starts a holder of {@code lockFile} and returns once it holds the slot. */
  public static Process start(Path lockFile) throws Exception {
    String javaCommand = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(javaCommand, "-cp", System.getProperty("java.class.path"), SlotHolder.class.getName(),
        lockFile.toString()).redirectErrorStream(true).start();
    var out = new BufferedReader(new InputStreamReader(p.getInputStream(),
        StandardCharsets.UTF_8));
    String line = out.readLine();
    if (!"held".equals(line)) {
      p.destroyForcibly();
      throw new IllegalStateException("the slot holder said " + line);
    }
    return p;
  }

  /** Sends {@code signal} (STOP, CONT) to {@code process}. */
  public static void signal(Process process, String signal) throws Exception {
    new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start().waitFor();
  }
}
