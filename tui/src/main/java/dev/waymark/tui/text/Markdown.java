package dev.waymark.tui.text;

import java.util.ArrayList;
import java.util.List;
import org.commonmark.node.BlockQuote;
import org.commonmark.node.Code;
import org.commonmark.node.Emphasis;
import org.commonmark.node.FencedCodeBlock;
import org.commonmark.node.HardLineBreak;
import org.commonmark.node.Heading;
import org.commonmark.node.HtmlBlock;
import org.commonmark.node.HtmlInline;
import org.commonmark.node.Image;
import org.commonmark.node.IndentedCodeBlock;
import org.commonmark.node.Link;
import org.commonmark.node.ListBlock;
import org.commonmark.node.ListItem;
import org.commonmark.node.Node;
import org.commonmark.node.OrderedList;
import org.commonmark.node.Paragraph;
import org.commonmark.node.SoftLineBreak;
import org.commonmark.node.StrongEmphasis;
import org.commonmark.node.Text;
import org.commonmark.node.ThematicBreak;
import org.commonmark.parser.Parser;

/**
 * Renders a model's Markdown answer to styled rows of a given width. The text may be cut off
 * anywhere (it streams in), so everything it is given renders without error: an open code fence
 * is code up to the end.
 */
public final class Markdown {
  private static final Parser PARSER = Parser.builder().build();
  private static final Line BULLET_INDENT = Line.plain("  ");

  private Markdown() {}

  public static List<Line> render(String markdown, int width) {
    int w = Math.max(1, width);
    List<Line> rows = new ArrayList<>();
    Node document;
    try {
      document = PARSER.parse(markdown);
    } catch (RuntimeException e) {
      // the parser is not supposed to fail; if it does, the text is still shown as it is
      for (String line : markdown.split("\n", -1)) {
        rows.addAll(Wrap.wrap(Line.plain(Wrap.expandTabs(line)), w));
      }
      return rows;
    }
    container(document, rows, w, Line.EMPTY, Line.EMPTY, false);
    return rows;
  }

  private static void container(Node parent, List<Line> rows, int width, Line first, Line rest, boolean tight) {
    boolean firstChild = true;
    for (Node child = parent.getFirstChild(); child != null; child = child.getNext()) {
      if (!firstChild && !tight) {
        rows.add(rest.spans().isEmpty() ? Line.EMPTY : trimmedPrefix(rest));
      }
      block(child, rows, width, firstChild ? first : rest, rest);
      firstChild = false;
    }
  }

  private static Line trimmedPrefix(Line prefix) {
    String text = prefix.text().stripTrailing();
    return text.isEmpty() ? Line.EMPTY : Line.of(Span.of(text, Tone.MUTED));
  }

  private static void block(Node node, List<Line> rows, int width, Line first, Line rest) {
    if (node instanceof Heading heading) {
      Style style = Style.of(Tone.HEADING).bolded();
      if (heading.getLevel() >= 3) {
        style = Style.of(Tone.HEADING);
      }
      paragraph(inlines(node, style), rows, width, first, rest);
    } else if (node instanceof Paragraph) {
      paragraph(inlines(node, Style.PLAIN), rows, width, first, rest);
    } else if (node instanceof FencedCodeBlock code) {
      code(code.getLiteral(), rows, width, first, rest);
    } else if (node instanceof IndentedCodeBlock code) {
      code(code.getLiteral(), rows, width, first, rest);
    } else if (node instanceof HtmlBlock html) {
      code(html.getLiteral(), rows, width, first, rest);
    } else if (node instanceof ThematicBreak) {
      int room = Math.max(1, width - first.width());
      rows.add(first.plus(Span.of("─".repeat(room), Tone.MUTED)));
    } else if (node instanceof BlockQuote) {
      Line bar = Line.of(Span.of("│ ", Tone.MUTED));
      container(node, rows, width, concat(first, bar), concat(rest, bar), false);
    } else if (node instanceof ListBlock list) {
      list(list, rows, width, first, rest);
    } else {
      container(node, rows, width, first, rest, false);
    }
  }

  private static void list(ListBlock list, List<Line> rows, int width, Line first, Line rest) {
    int number = list instanceof OrderedList ordered && ordered.getMarkerStartNumber() != null
        ? ordered.getMarkerStartNumber() : 1;
    boolean firstItem = true;
    for (Node item = list.getFirstChild(); item != null; item = item.getNext()) {
      if (!firstItem && !list.isTight()) {
        rows.add(trimmedPrefix(rest));
      }
      String marker = list instanceof OrderedList ? (number++) + ". " : "• ";
      Line markerLine = Line.of(Span.of(marker, Tone.ACCENT));
      Line hang = concat(rest, Line.plain(" ".repeat(marker.length())));
      if (item instanceof ListItem) {
        container(item, rows, width, concat(firstItem ? first : rest, markerLine), hang, list.isTight());
      } else {
        block(item, rows, width, concat(firstItem ? first : rest, markerLine), hang);
      }
      firstItem = false;
    }
  }

  private static void paragraph(List<List<Span>> lines, List<Line> rows, int width, Line first, Line rest) {
    boolean firstLine = true;
    for (List<Span> spans : lines) {
      Line prefix = firstLine ? first : rest;
      List<Span> all = new ArrayList<>(prefix.spans());
      all.addAll(spans);
      rows.addAll(Wrap.wrap(new Line(all), width, rest));
      firstLine = false;
    }
  }

  private static void code(String literal, List<Line> rows, int width, Line first, Line rest) {
    String body = literal.endsWith("\n") ? literal.substring(0, literal.length() - 1) : literal;
    Style style = Style.of(Tone.CODE);
    boolean firstLine = true;
    for (String source : body.split("\n", -1)) {
      Line prefix = concat(firstLine ? first : rest, BULLET_INDENT);
      int room = Math.max(1, width - prefix.width());
      String text = Wrap.expandTabs(source);
      do {
        String piece = CellWidth.truncate(text, room);
        Line rowPrefix = prefix;
        if (piece.isEmpty() && !text.isEmpty()) {
          // a character wider than the room: on its own, without the indent when that is what it needs
          piece = text.substring(0, CellWidth.clusterEnd(text, 0));
          if (prefix.width() + CellWidth.of(piece) > width) {
            rowPrefix = Line.EMPTY;
          }
        }
        rows.add(piece.isEmpty() ? trimmedPrefix(prefix) : rowPrefix.plus(new Span(piece, style)));
        text = text.substring(piece.length());
        prefix = concat(rest, BULLET_INDENT);
      } while (!text.isEmpty());
      firstLine = false;
    }
  }

  /** The inline content of a block as logical lines (split at hard breaks) of styled spans. */
  private static List<List<Span>> inlines(Node block, Style base) {
    List<List<Span>> lines = new ArrayList<>();
    lines.add(new ArrayList<>());
    inline(block, base, lines);
    return lines;
  }

  private static void inline(Node parent, Style style, List<List<Span>> lines) {
    for (Node node = parent.getFirstChild(); node != null; node = node.getNext()) {
      List<Span> current = lines.get(lines.size() - 1);
      if (node instanceof Text text) {
        add(current, text.getLiteral(), style);
      } else if (node instanceof Code code) {
        add(current, code.getLiteral(), style.withTone(Tone.CODE));
      } else if (node instanceof Emphasis) {
        inline(node, style.italicized(), lines);
      } else if (node instanceof StrongEmphasis) {
        inline(node, style.bolded(), lines);
      } else if (node instanceof SoftLineBreak) {
        add(current, " ", style);
      } else if (node instanceof HardLineBreak) {
        lines.add(new ArrayList<>());
      } else if (node instanceof Link link) {
        int before = current.size();
        inline(node, style.underlined(), lines);
        String shown = textOf(lines.get(lines.size() - 1), lines.size() == 1 ? before : 0);
        if (!link.getDestination().isEmpty() && !link.getDestination().equals(shown)) {
          add(lines.get(lines.size() - 1), " (" + link.getDestination() + ")", Style.of(Tone.MUTED));
        }
      } else if (node instanceof Image) {
        inline(node, style.italicized(), lines);
      } else if (node instanceof HtmlInline html) {
        add(current, html.getLiteral(), style);
      } else {
        inline(node, style, lines);
      }
    }
  }

  private static String textOf(List<Span> spans, int from) {
    StringBuilder b = new StringBuilder();
    for (int i = Math.max(0, from); i < spans.size(); i++) {
      b.append(spans.get(i).text());
    }
    return b.toString();
  }

  private static void add(List<Span> spans, String text, Style style) {
    String clean = text.replace('\n', ' ').replace('\r', ' ');
    if (!clean.isEmpty()) {
      spans.add(new Span(clean, style));
    }
  }

  private static Line concat(Line a, Line b) {
    if (a.spans().isEmpty()) {
      return b;
    }
    List<Span> all = new ArrayList<>(a.spans());
    all.addAll(b.spans());
    return new Line(all);
  }
}
