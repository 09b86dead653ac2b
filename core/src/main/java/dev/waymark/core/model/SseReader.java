package dev.waymark.core.model;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Splits a server-sent-events stream into events, as the HTML spec describes: lines end in LF, CR
 * or CRLF; {@code :} starts a comment; {@code data:} lines accumulate; a blank line dispatches.
 * Events split across network reads need no care here: the reader pulls whole lines.
 *
 * <p>A non-standard {@code error:} field (llama.cpp) becomes an event named {@code error} whose data
 * is the field's value.
 *
 * <p>Unlike the spec, an event still pending at the end of the stream is returned rather than
 * dropped, because some servers end with {@code data: [DONE]} and no blank line.
 */
final class SseReader {
  /**
   * One event; {@code event} is null when the server named none. {@code complete} is false for the
   * one the stream ended in, before its blank line: it may have been cut anywhere.
   */
  record Event(String event, String data, boolean complete) {
    Event(String event, String data) {
      this(event, data, true);
    }
  }

  private final BufferedReader reader;
  private boolean first = true;

  SseReader(InputStream in) {
    this.reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
  }

  /** The next event, or null at the end of the stream. */
  Event next() throws IOException {
    String event = null;
    StringBuilder data = null;
    String line;
    while ((line = reader.readLine()) != null) {
      if (first) {
        first = false;
        if (line.startsWith("\uFEFF")) {
          line = line.substring(1);
        }
      }
      if (line.isEmpty()) {
        if (data != null) {
          return new Event(event, data.toString());
        }
        event = null;
        continue;
      }
      if (line.startsWith(":")) {
        continue;
      }
      int colon = line.indexOf(':');
      String field = colon < 0 ? line : line.substring(0, colon);
      String value = colon < 0 ? "" : line.substring(colon + 1);
      if (value.startsWith(" ")) {
        value = value.substring(1);
      }
      if (field.equals("event")) {
        event = value;
      } else if (field.equals("error")) {
        // llama.cpp's server reports a failure after the headers in a field of its own
        event = "error";
        data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
      } else if (field.equals("data")) {
        if (data == null) {
          data = new StringBuilder(value);
        } else {
          data.append('\n').append(value);
        }
      }
      // id, retry and unknown fields mean nothing to a one-shot request
    }
    return data == null ? null : new Event(event, data.toString(), false);
  }
}
