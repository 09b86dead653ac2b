package dev.waymark.tui.terminal;

import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import java.io.IOException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the terminal on its own daemon thread (Lanterna's reads cannot be interrupted) and hands
 * each {@link UiInput} to a consumer, which must be thread-safe (the UI's queue).
 */
public final class KeyReader {
  private static final Logger LOG = LoggerFactory.getLogger(KeyReader.class);

  private KeyReader() {}

  public static Thread start(UiTerminal terminal, Consumer<UiInput> sink) {
    InputTranslator translator = new InputTranslator();
    Thread thread = new Thread(() -> {
      try {
        while (!Thread.currentThread().isInterrupted()) {
          KeyStroke stroke = terminal.terminal().readInput();
          translator.translate(stroke).ifPresent(sink);
          if (stroke != null && stroke.getKeyType() == KeyType.EOF) {
            return;
          }
        }
      } catch (IOException | RuntimeException e) {
        LOG.warn("reading the terminal failed", e);
        sink.accept(new UiInput.Eof());
      }
    }, "waymark-keys");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }
}
