package dev.waymark.core.tool;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.select.NodeVisitor;

/**
 * A page's HTML as Markdown-like text for the model: headings, paragraphs, lists, links with their
 * (absolute) targets, code blocks and table rows; scripts, styles, navigation chrome and forms left out.
 */
final class HtmlText {
  private HtmlText() {}

  /** The page's title (if any) and its main text; {@code baseUri} makes relative links absolute. */
  static String of(String html, String baseUri) {
    return of(Jsoup.parse(html, baseUri));
  }

  /** {@link #of(String, String)} for a page already parsed (from bytes, its charset found by jsoup). */
  static String of(Document page) {
    page.select("script, style, noscript, template, svg, iframe, form, nav, footer, header[role=banner]").remove();
    Element main = page.selectFirst("main, article, [role=main]");
    Element body = main != null ? main : page.body();
    Markdown out = new Markdown();
    if (body != null) {
      body.traverse(out);
    }
    String title = page.title().strip();
    String text = out.text();
    return title.isEmpty() ? text : "# " + title + "\n\n" + text;
  }

  private static final class Markdown implements NodeVisitor {
    private final StringBuilder text = new StringBuilder();
    private int preDepth;

    @Override
    public void head(Node node, int depth) {
      if (node instanceof TextNode t) {
        String s = preDepth > 0 ? t.getWholeText() : t.text();
        if (!s.isBlank() || preDepth > 0) {
          if (preDepth == 0 && needsSpace(s)) {
            text.append(' ');
          }
          text.append(preDepth > 0 ? s : s.strip());
        }
        return;
      }
      if (!(node instanceof Element e)) {
        return;
      }
      switch (e.normalName()) {
        case "h1", "h2", "h3", "h4", "h5", "h6" -> block().append("#".repeat(e.normalName().charAt(1) - '0')).append(' ');
        case "p", "div", "section", "table", "blockquote", "dl" -> block();
        case "br" -> text.append('\n');
        case "li" -> line().append(e.parent() != null && e.parent().normalName().equals("ol")
            ? (e.elementSiblingIndex() + 1) + ". " : "- ");
        case "tr" -> line().append("| ");
        case "pre" -> {
          block().append("```\n");
          preDepth++;
        }
        default -> { }
      }
    }

    @Override
    public void tail(Node node, int depth) {
      if (!(node instanceof Element e)) {
        return;
      }
      switch (e.normalName()) {
        case "a" -> {
          String href = e.absUrl("href");
          if (!href.isEmpty() && !e.text().isBlank() && !href.startsWith("javascript:")) {
            text.append(" (").append(href).append(')');
          }
        }
        case "td", "th" -> text.append(" |");
        case "pre" -> {
          preDepth--;
          line().append("```");
          block();
        }
        case "h1", "h2", "h3", "h4", "h5", "h6", "p", "table", "blockquote" -> block();
        default -> { }
      }
    }

    private boolean needsSpace(String s) {
      if (text.length() == 0) {
        return false;
      }
      char last = text.charAt(text.length() - 1);
      return !Character.isWhitespace(last) && last != '(' && !(s.startsWith(".") || s.startsWith(",") || s.startsWith(")"));
    }

    private StringBuilder line() {
      trimTrailingSpaces();
      if (text.length() > 0 && text.charAt(text.length() - 1) != '\n') {
        text.append('\n');
      }
      return text;
    }

    private StringBuilder block() {
      line();
      if (text.length() > 1 && !(text.charAt(text.length() - 1) == '\n' && text.charAt(text.length() - 2) == '\n')) {
        text.append('\n');
      }
      return text;
    }

    private void trimTrailingSpaces() {
      while (text.length() > 0 && text.charAt(text.length() - 1) == ' ') {
        text.setLength(text.length() - 1);
      }
    }

    String text() {
      return text.toString().replaceAll("\n{3,}", "\n\n").strip();
    }
  }
}
