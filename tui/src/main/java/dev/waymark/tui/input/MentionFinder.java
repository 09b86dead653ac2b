package dev.waymark.tui.input;

import dev.waymark.core.context.FileIndex;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The {@code @} finder: while the word at the caret starts with {@code @}, the project's files that
 * match what follows it, best first, and the MCP servers' resources ({@code SERVER:URI}) that contain
 * it, to pick with ↑ ↓ and put in with Tab or Enter. It opens by itself as {@code @} is typed and
 * closes with Esc (until the word changes) or a space.
 */
public final class MentionFinder {
  /** How many matches are shown at once. */
  public static final int SHOWN = 8;

  /** The {@code @word} the caret is in: where it starts, and what follows the {@code @}. */
  public record Token(int start, String query) {}

  private static final int MOST = 50;

  private final FileIndex index;
  private final Supplier<List<String>> resources;
  private String lastQuery;
  private List<String> lastMatches = List.of();
  private int selected;
  private Token dismissed;

  public MentionFinder(FileIndex index) {
    this(index, List::of);
  }

  /** {@code resources}: the MCP servers' resources as {@code SERVER:URI}, as they are listed now. */
  public MentionFinder(FileIndex index, Supplier<List<String>> resources) {
    this.index = index;
    this.resources = resources;
  }

  /** The {@code @word} that ends at the caret, if the caret is in one. */
  public static Optional<Token> token(String text, int caret) {
    int start = caret;
    while (start > 0 && !Character.isWhitespace(text.charAt(start - 1))) {
      start--;
    }
    if (start >= text.length() || text.charAt(start) != '@' || start == caret) {
      return Optional.empty();
    }
    return Optional.of(new Token(start, text.substring(start + 1, caret)));
  }

  /** Whether the finder shows now for {@code editor}: an {@code @word} at the caret, not dismissed, with matches. */
  public boolean open(InputEditor editor) {
    Optional<Token> token = token(editor.text(), editor.caret());
    // open while the first listing runs too, saying so, rather than showing nothing until a key is pressed
    return token.isPresent() && !token.get().equals(dismissed) && (indexing() || !matches(token.get().query()).isEmpty());
  }

  /** Whether an MCP server lists resources the finder offers too. */
  public boolean offersResources() {
    return !resources.get().isEmpty();
  }

  /** Whether the project's files are still being indexed (the finder then says so). */
  public boolean indexing() {
    return !index.ready();
  }

  /** The index's entries the remembered matches were searched in. */
  private Object searched;

  /** The matches for {@code query}, remembered until it changes: a frame redrawn costs no search. */
  public List<String> matches(String query) {
    if (!query.equals(lastQuery) || index.version() != searched) {
      lastQuery = query;
      searched = index.version();
      lastMatches = search(query);
      selected = 0;
    }
    return lastMatches;
  }

  /** Files and resources: a query with a {@code :} is most likely a resource's, so those come first then. */
  private List<String> search(String query) {
    String wanted = query.toLowerCase(Locale.ROOT);
    List<String> found = resources.get().stream().filter(r -> r.toLowerCase(Locale.ROOT).contains(wanted))
        .limit(MOST).toList();
    if (found.isEmpty()) {
      return index.search(query, MOST);
    }
    List<String> all = new ArrayList<>(query.contains(":") ? List.of() : index.search(query, MOST - found.size()));
    all.addAll(found); // after the files, but never crowded out by them
    return List.copyOf(all);
  }

  /** The matches shown for {@code editor}, and which is selected. */
  public List<String> shown(InputEditor editor) {
    return token(editor.text(), editor.caret()).map(t -> matches(t.query())).orElse(List.of());
  }

  public int selected() {
    return selected;
  }

  public void move(int delta) {
    selected = Math.max(0, Math.min(lastMatches.size() - 1, selected + delta));
  }

  /** Puts the selected path in place of the {@code @word}; a file is followed by a space, a directory is not. */
  public void accept(InputEditor editor) {
    Optional<Token> token = token(editor.text(), editor.caret());
    if (token.isEmpty() || lastMatches.isEmpty()) {
      return;
    }
    String path = lastMatches.get(Math.min(selected, lastMatches.size() - 1));
    editor.replace(token.get().start(), editor.caret(), "@" + path + (path.endsWith("/") ? "" : " "));
  }

  /** Closes the finder until the {@code @word} changes. */
  public void dismiss(InputEditor editor) {
    dismissed = token(editor.text(), editor.caret()).orElse(null);
  }

  /** Starts indexing again in the background, so files made since are found. */
  public void refresh() {
    index.refresh();
  }
}
