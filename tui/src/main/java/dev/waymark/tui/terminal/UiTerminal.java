package dev.waymark.tui.terminal;

import com.googlecode.lanterna.TerminalPosition;
import com.googlecode.lanterna.TerminalSize;
import com.googlecode.lanterna.screen.TerminalScreen;
import com.googlecode.lanterna.terminal.Terminal;
import com.googlecode.lanterna.terminal.ansi.StreamBasedTerminal;
import com.googlecode.lanterna.terminal.ansi.UnixTerminal;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real terminal, set up the way a full-screen program needs it (research/java-stack.md §1):
 * one buffered output stream, the size from {@code stty size} instead of a slow cursor query,
 * Ctrl+C trapped rather than killing the JVM, flow control and the suspend and quit keys off so
 * Ctrl+S/Q/Z/\ reach us, Enter and Ctrl+J told apart, bracketed paste on, and every frame inside
 * synchronized-output markers. All of it is undone on {@link #close}, on a crash (callers close in
 * {@code finally}) and on a signal (a shutdown hook). While it is open, {@code System.out} and
 * {@code System.err} go to the log, never to the screen.
 */
public final class UiTerminal implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(UiTerminal.class);
  private static final byte[] SYNC_BEGIN = "\u001b[?2026h".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] SYNC_END = "\u001b[?2026l".getBytes(StandardCharsets.US_ASCII);

  private final OutputStream out;
  private final Terminal terminal;
  private final TerminalScreen screen;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread restoreOnSignal;
  private final PrintStream savedOut;
  private final PrintStream savedErr;

  /** The Lanterna terminal with the fixes that need its protected hooks. */
  private static final class SttyTerminal extends UnixTerminal {
    SttyTerminal(OutputStream out) throws IOException {
      super(new FileInputStream(FileDescriptor.in), out, StandardCharsets.UTF_8, CtrlCBehaviour.TRAP);
    }

    @Override
    protected TerminalSize findTerminalSize() {
      try {
        String[] rowsColumns = runSTTYCommand("size").trim().split("\\s+");
        int rows = Integer.parseInt(rowsColumns[0]);
        int columns = Integer.parseInt(rowsColumns[1]);
        if (rows > 0 && columns > 0) {
          return new TerminalSize(columns, rows);
        }
      } catch (IOException | RuntimeException e) {
        LOG.debug("stty size failed", e);
      }
      return new TerminalSize(80, 24);
    }

    void stty(String... settings) throws IOException {
      runSTTYCommand(settings);
    }

    private final ClusterOutput clusters = new ClusterOutput();
    private final ClusterOutput.Sink sink = new ClusterOutput.Sink() {
      @Override
      public void write(byte[] bytes) throws IOException {
        writeToTerminal(bytes);
      }

      @Override
      public void moveTo(int column, int row) throws IOException {
        SttyTerminal.super.setCursorPosition(column, row);
      }

      @Override
      public void putChar(char c) throws IOException {
        SttyTerminal.super.putCharacter(c);
      }
    };

    @Override
    public void setCursorPosition(int x, int y) throws IOException {
      super.setCursorPosition(x, y);
      clusters.movedTo(x, y);
    }

    @Override
    public void setCursorPosition(TerminalPosition position) throws IOException {
      setCursorPosition(position.getColumn(), position.getRow());
    }

    @Override
    public void putString(String string) throws IOException {
      clusters.put(string, sink);
    }

    @Override
    public void putCharacter(char c) throws IOException {
      clusters.put(String.valueOf(c), sink);
    }
  }

  private UiTerminal(OutputStream out, Terminal terminal) throws IOException {
    this.out = out;
    this.terminal = terminal;
    if (terminal instanceof StreamBasedTerminal stream) {
      stream.getInputDecoder().addProfile(() -> List.of(new BracketedPaste(), new LineKeys(), new FocusReport()));
    }
    this.screen = new TerminalScreen(terminal);
    this.savedOut = System.out;
    this.savedErr = System.err;
    this.restoreOnSignal = new Thread(this::close, "waymark-terminal-restore");
  }

  /** Takes over the process's terminal. */
  public static UiTerminal open() throws IOException {
    OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
    SttyTerminal terminal = new SttyTerminal(out);
    UiTerminal ui = new UiTerminal(out, terminal);
    try {
      ui.screen.startScreen();
      terminal.stty("-ixon", "-icrnl", "-iexten", "susp", "undef", "quit", "undef");
      ui.write(BracketedPaste.ENABLE.getBytes(StandardCharsets.US_ASCII));
      ui.write(FocusReport.ENABLE.getBytes(StandardCharsets.US_ASCII)); // notifications only while the user looks elsewhere
      out.flush();
      Runtime.getRuntime().addShutdownHook(ui.restoreOnSignal);
      System.setOut(new PrintStream(new LogStream("stdout"), true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(new LogStream("stderr"), true, StandardCharsets.UTF_8));
      return ui;
    } catch (IOException | RuntimeException e) {
      ui.close();
      throw e;
    }
  }

  public TerminalScreen screen() {
    return screen;
  }

  Terminal terminal() {
    return terminal;
  }

  /** Calls {@code listener} (on Lanterna's signal thread) when the terminal changes size. */
  public void onResize(Runnable listener) {
    terminal.addResizeListener((t, size) -> listener.run());
  }

  /** Runs {@code refresh} inside synchronized-output markers, so the terminal shows the frame whole. */
  public void frame(Runnable refresh) {
    try {
      write(SYNC_BEGIN);
      refresh.run();
      write(SYNC_END);
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes an escape sequence between frames (a desktop notification); a failure is logged, never thrown. */
  public void send(String sequence) {
    try {
      write(sequence.getBytes(StandardCharsets.UTF_8));
      out.flush();
    } catch (IOException e) {
      LOG.debug("could not write to the terminal", e);
    }
  }

  private void write(byte[] bytes) throws IOException {
    synchronized (out) {
      out.write(bytes);
    }
  }

  /** Restores the terminal; safe to call more than once and from a shutdown hook. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      write(SYNC_END);
      write(BracketedPaste.DISABLE.getBytes(StandardCharsets.US_ASCII));
      write(FocusReport.DISABLE.getBytes(StandardCharsets.US_ASCII));
      out.flush();
    } catch (IOException e) {
      LOG.debug("could not switch bracketed paste off", e);
    }
    try {
      screen.stopScreen();
    } catch (IOException | RuntimeException e) {
      LOG.debug("could not leave the alternate screen", e);
    }
    try {
      terminal.close(); // restores the stty settings saved when it opened
    } catch (IOException | RuntimeException e) {
      LOG.debug("could not restore the terminal", e);
    }
    System.setOut(savedOut);
    System.setErr(savedErr);
    try {
      Runtime.getRuntime().removeShutdownHook(restoreOnSignal);
    } catch (IllegalStateException shuttingDown) {
      // the hook is what is running
    }
  }

  /** Lines written to System.out or System.err while the screen is ours: they go to the log. */
  private static final class LogStream extends OutputStream {
    private final String name;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    LogStream(String name) {
      this.name = name;
    }

    @Override
    public synchronized void write(int b) {
      if (b == '\n') {
        flush();
      } else {
        line.write(b);
      }
    }

    @Override
    public synchronized void flush() {
      if (line.size() > 0) {
        LOG.info("{}: {}", name, line.toString(StandardCharsets.UTF_8));
        line.reset();
      }
    }
  }
}
