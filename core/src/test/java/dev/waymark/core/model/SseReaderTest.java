package dev.waymark.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Server-sent events as the HTML spec defines them, plus the leniency real servers need. */
class SseReaderTest {
  private static List<SseReader.Event> read(String stream) throws Exception {
    SseReader reader = new SseReader(new ByteArrayInputStream(stream.getBytes(StandardCharsets.UTF_8)));
    List<SseReader.Event> events = new ArrayList<>();
    SseReader.Event e;
    while ((e = reader.next()) != null) {
      events.add(e);
    }
    return events;
  }

  @Test
  void dataLinesAccumulateUntilABlankLine() throws Exception {
    assertThat(read("data: a\ndata: b\n\ndata: c\n\n"))
        .containsExactly(new SseReader.Event(null, "a\nb"), new SseReader.Event(null, "c"));
  }

  @Test
  void lfCrAndCrlfAllEndLines() throws Exception {
    assertThat(read("event: x\r\ndata: 1\r\n\r\ndata: 2\r\rdata: 3\n\n"))
        .containsExactly(
            new SseReader.Event("x", "1"), new SseReader.Event(null, "2"), new SseReader.Event(null, "3"));
  }

  @Test
  void commentsUnknownFieldsAndStrayBlankLinesAreSkipped() throws Exception {
    assertThat(read("\uFEFF: hello\n\n\nid: 7\nretry: 10\ndata:x\n\n"))
        .containsExactly(new SseReader.Event(null, "x"));
  }

  @Test
  void theEventNameDoesNotLeakIntoTheNextEvent() throws Exception {
    assertThat(read("event: a\ndata: 1\n\ndata: 2\n\n"))
        .containsExactly(new SseReader.Event("a", "1"), new SseReader.Event(null, "2"));
  }

  @Test
  void aLastEventWithoutTheFinalBlankLineIsStillReturnedMarkedIncomplete() throws Exception {
    assertThat(read("data: 1\n\ndata: [DONE]"))
        .containsExactly(new SseReader.Event(null, "1"), new SseReader.Event(null, "[DONE]", false));
  }

  @Test
  void llamaCppsErrorFieldIsAnEventNamedError() throws Exception {
    assertThat(read("error: {\"code\":500,\"message\":\"boom\"}\n\ndata: [DONE]\n\n"))
        .containsExactly(
            new SseReader.Event("error", "{\"code\":500,\"message\":\"boom\"}"), new SseReader.Event(null, "[DONE]"));
  }
}
