package dev.waymark.tui.chat;

import dev.waymark.tui.text.Line;
import java.util.List;

/**
 * One piece of a tab's chat: a prompt, streamed answer, tool call, steering message or notice.
 * It belongs to a checkpoint ({@code -1}: to the tab, such as a command's output) and lays itself
 * out for a width, caching the result until it changes.
 */
public abstract class Block {
  private final int checkpoint;
  private int cachedWidth = -1;
  private int cachedVersion = -1;
  private List<Line> cached = List.of();
  private int version;

  protected Block(int checkpoint) {
    this.checkpoint = checkpoint;
  }

  public final int checkpoint() {
    return checkpoint;
  }

  /** The rows of this block at {@code width}, laid out once per width and change. */
  public final List<Line> lines(int width) {
    if (width != cachedWidth || version != cachedVersion) {
      cached = List.copyOf(layout(Math.max(1, width)));
      cachedWidth = width;
      cachedVersion = version;
    }
    return cached;
  }

  /** Marks the block changed, so that the next {@link #lines} lays it out again. */
  protected final void changed() {
    version++;
  }

  protected abstract List<Line> layout(int width);
}
