package dev.waymark.core.model;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/** A {@link StreamListener} for tests: keeps every event and signals the first one. */
public final class RecordingListener implements StreamListener {
  public final List<String> texts = new CopyOnWriteArrayList<>();
  public final List<String> toolStarts = new CopyOnWriteArrayList<>();
  public final List<String> reasoning = new CopyOnWriteArrayList<>();
  public final List<String> waits = new CopyOnWriteArrayList<>();
  public final CountDownLatch firstEvent = new CountDownLatch(1);

  @Override
  public void textDelta(String text) {
    texts.add(text);
    firstEvent.countDown();
  }

  @Override
  public void toolCallStarted(String id, String name) {
    toolStarts.add(id + ":" + name);
    firstEvent.countDown();
  }

  @Override
  public void reasoningDelta(String text) {
    reasoning.add(text);
    firstEvent.countDown();
  }

  @Override
  public void retrying(Retry retry) {
    waits.add(retry.message());
  }

  public String text() {
    return String.join("", texts);
  }
}
