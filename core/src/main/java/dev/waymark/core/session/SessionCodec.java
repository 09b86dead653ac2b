package dev.waymark.core.session;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.agent.Compaction;
import dev.waymark.core.agent.ProtocolViews;
import dev.waymark.core.agent.TabMemory;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.ChildLink;
import dev.waymark.core.checkpoint.TagNames;
import dev.waymark.core.checkpoint.TreeSnapshot;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileModes;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.lib.ProjectPaths;
import dev.waymark.core.context.TypedPrompt;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ToolCall;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.RestoreOutcome;
import dev.waymark.core.protocol.ToolCallView;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.eclipse.jgit.lib.ObjectId;

/** Turns a live tab into a session record and back. */
public final class SessionCodec {
  private SessionCodec() {}

  /** What the record of one tab holds besides its tree and memory. */
  public record TabInfo(String title, String provider, String input) {}

  /**
   * What a tab is made of when it is saved, as values taken from it at one moment: its tree, its
   * conversation, its model and approval mode, and what the interface shows of it.
   */
  public record TabValues(TreeSnapshot tree, TabMemory memory, String model, String approval,
      TabInfo info) {}

  /** The values of {@code session} now, with the interface's {@code info}; never waits on a turn writing to the tree. */
  public static TabValues valuesOf(TabSession session, TabInfo info) {
    return new TabValues(session.snapshot().tree(), session.memory(), session.settings().model(),
        session.settings().approval().label(), info);
  }

  /** A tab's record: its tree snapshot and memory, with the UI's title and input. */
  public static SessionFile.Tab capture(TabValues tab) {
    return capture(tab, Map.of());
  }

  /**
   * A tab's record, with {@code transcript}: the events each checkpoint's turn showed (see
   * {@link SessionFile.Entry}); a checkpoint without one is written without a transcript.
   */
  public static SessionFile.Tab capture(TabValues tab, Map<Integer, List<Event>> transcript) {
    TreeSnapshot snapshot = tab.tree();
    TabMemory memory = tab.memory();
    TabInfo info = tab.info();
    List<SessionFile.Checkpoint> checkpoints = new ArrayList<>();
    for (Checkpoint cp : snapshot.checkpoints()) {
      List<SessionFile.Change> changes = new ArrayList<>();
      for (FileChange change : cp.changes()) {
        changes.add(new SessionFile.Change(change.path(), version(change.before()), version(change.after())));
      }
      List<SessionFile.Message> messages = new ArrayList<>();
      for (ChatMessage m : memory.messages().getOrDefault(cp.number(), List.of())) {
        messages.add(message(m));
      }
      ToolCall pending = memory.pending().get(cp.number());
      checkpoints.add(new SessionFile.Checkpoint(cp.number(), cp.parent(), cp.status().name().toLowerCase(Locale.ROOT),
          cp.created(), cp.commit().map(ObjectId::name).orElse(null), cp.tag().orElse(null),
          new ArrayList<>(new TreeSet<>(cp.savedNames())), changes, messages, memory.drafts().get(cp.number()),
          pending == null ? null : call(pending), entries(transcript.get(cp.number()), messages),
          cp.children().stream().map(c -> new SessionFile.Child(c.tab(), c.first(), c.last(), c.isolated())).toList()));
    }
    Map<String, String> saves = new TreeMap<>();
    snapshot.saves().forEach((name, commit) -> saves.put(name, commit.name()));
    return new SessionFile.Tab(snapshot.tabId(), info.title(), info.provider(), tab.model(), info.input(),
        snapshot.live(), snapshot.filesAt(), snapshot.redo(), checkpoints, saves, null, tab.approval(), null);
  }

  /** The tree snapshot a tab record describes; a record that cannot be a tree is a {@link SessionException}. */
  public static TreeSnapshot snapshot(SessionFile.Tab tab) {
    if (!TagNames.isTabId(tab.tabId())) {
      throw new SessionException(ErrorKind.LOST, "a tab without a usable id");
    }
    Set<Integer> numbers = new HashSet<>();
    for (SessionFile.Checkpoint cp : tab.checkpoints()) {
      boolean start = cp.number() == 0 && cp.parent() == -1;
      if (cp.number() < 0 || cp.number() > 10_000_000 || !numbers.add(cp.number())
          || (!start && (cp.parent() < 0 || cp.parent() >= cp.number() || !numbers.contains(cp.parent())))) {
        throw new SessionException(ErrorKind.LOST, "tab " + tab.tabId() + " has a checkpoint #" + cp.number() + " that does not fit its tree");
      }
    }
    for (int n : concat(List.of(tab.live(), tab.filesAt()), tab.redo())) {
      if (n != 0 && !numbers.contains(n)) {
        throw new SessionException(ErrorKind.LOST, "tab " + tab.tabId() + " refers to checkpoint #" + n + ", which it does not have");
      }
    }
    List<Checkpoint> checkpoints = new ArrayList<>();
    for (SessionFile.Checkpoint cp : tab.checkpoints()) {
      List<FileChange> changes = new ArrayList<>();
      for (SessionFile.Change c : cp.changes()) {
        changes.add(new FileChange(path(tab, cp, c), version(c.before()), version(c.after())));
      }
      // the tag is named from the tab and number, never read: a file's own name could be another tab's tag
      Optional<String> tag = Optional.ofNullable(cp.tag()).map(any -> TagNames.tabPrefix(tab.tabId()) + cp.number());
      checkpoints.add(new Checkpoint(cp.number(), cp.parent(), status(cp.status()),
          cp.created() == null ? Instant.EPOCH : cp.created(), changes,
          Optional.ofNullable(cp.commit()).map(SessionCodec::commit), tag, Set.copyOf(cp.saved()), children(cp)));
    }
    Map<String, ObjectId> saves = new LinkedHashMap<>();
    tab.saves().forEach((name, commit) -> {
      try {
        TagNames.checkSaveName(name); // read into a ref name
      } catch (CheckpointException e) {
        throw new SessionException(ErrorKind.LOST, "tab " + tab.tabId() + " has a save of a bad name (" + e.getMessage() + ")", e);
      }
      saves.put(name, commit(commit));
    });
    return new TreeSnapshot(tab.tabId(), checkpoints, tab.live(), tab.filesAt(), tab.redo(), saves);
  }

  /** A change's path, checked as untrusted input: a session file may come from a bundle someone else wrote. */
  private static String path(SessionFile.Tab tab, SessionFile.Checkpoint cp, SessionFile.Change change) {
    if (change == null || change.path() == null) {
      throw new SessionException(ErrorKind.LOST, "tab " + tab.tabId() + " has a change without a path in checkpoint #" + cp.number());
    }
    try {
      return ProjectPaths.check(change.path());
    } catch (CheckpointException e) {
      throw new SessionException(ErrorKind.REFUSED, "tab " + tab.tabId() + " #" + cp.number() + " names a path outside the project's own files ("
          + e.getMessage() + ")", e);
    }
  }

  private static ObjectId commit(String id) {
    try {
      return ObjectId.fromString(id);
    } catch (IllegalArgumentException | StringIndexOutOfBoundsException e) {
      throw new SessionException(ErrorKind.LOST, "\"" + id + "\" is not a commit id");
    }
  }

  /**
   * The tabs {@code cp}'s subagents worked in: as the session records them, or, in a session from
   * before it did, as each {@code task} result's last line named them; a link that cannot be one
   * (no checkpoint, a bad tab id) is left out.
   */
  public static List<ChildLink> children(SessionFile.Checkpoint cp) {
    List<ChildLink> links = new ArrayList<>();
    if (cp.children() != null) {
      for (SessionFile.Child c : cp.children()) {
        if (c != null && c.tab() != null && c.tab().matches("[A-Za-z0-9_-]{1,64}") && c.first() >= 1 && c.last() >= c.first()) {
          links.add(new ChildLink(c.tab(), c.first(), c.last(), c.isolated()));
        }
      }
      return links;
    }
    for (SessionFile.Message m : cp.messages()) {
      if ("task".equals(m.toolName()) && m.text() != null) {
        OldChildLine.in(m.text()).ifPresent(links::add);
      }
    }
    return links;
  }

  private static List<Integer> concat(List<Integer> a, List<Integer> b) {
    List<Integer> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  /** The memory a tab record describes. */
  public static TabMemory memory(SessionFile.Tab tab) {
    Map<Integer, List<ChatMessage>> messages = new HashMap<>();
    Map<Integer, String> drafts = new HashMap<>();
    Map<Integer, ToolCall> pending = new HashMap<>();
    for (SessionFile.Checkpoint cp : tab.checkpoints()) {
      if (!cp.messages().isEmpty()) {
        List<ChatMessage> list = new ArrayList<>();
        for (SessionFile.Message m : cp.messages()) {
          list.add(message(m));
        }
        messages.put(cp.number(), list);
      }
      if (cp.draft() != null) {
        drafts.put(cp.number(), cp.draft());
      }
      if (cp.pending() != null) {
        pending.put(cp.number(), call(cp.pending()));
      }
    }
    return new TabMemory(messages, drafts, pending);
  }

  private static SessionFile.Version version(FileVersion v) {
    return new SessionFile.Version(v.kind().name().toLowerCase(Locale.ROOT), v.exists() ? v.blob().name() : null,
        v.hasMode() ? FileModes.octal(v.mode()) : null);
  }

  private static FileVersion version(SessionFile.Version v) {
    if (v == null) {
      throw new SessionException(ErrorKind.LOST, "a file change without its versions");
    }
    FileKind kind;
    try {
      kind = FileKind.valueOf(String.valueOf(v.kind()).toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new SessionException(ErrorKind.LOST, "a file version of an unknown kind \"" + v.kind() + "\"");
    }
    int mode;
    try {
      mode = FileModes.parse(v.mode());
    } catch (IllegalArgumentException e) {
      throw new SessionException(ErrorKind.LOST, "a file version with a bad mode \"" + v.mode() + "\"");
    }
    try {
      return kind == FileKind.ABSENT ? FileVersion.ABSENT : new FileVersion(kind, ObjectId.fromString(v.blob()), mode);
    } catch (IllegalArgumentException e) {
      throw new SessionException(ErrorKind.LOST, "a bad file version (" + e.getMessage() + ")");
    }
  }

  private static CheckpointStatus status(String s) {
    try {
      return s == null ? CheckpointStatus.DONE : CheckpointStatus.valueOf(s.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new SessionException(ErrorKind.LOST, "a checkpoint of an unknown status \"" + s + "\"");
    }
  }

  private static SessionFile.ToolCallRecord call(ToolCallView c) {
    return new SessionFile.ToolCallRecord(c.id(), c.name(), c.argumentsJson());
  }

  private static ToolCallView view(SessionFile.ToolCallRecord c) {
    return ProtocolViews.toolCall(call(c));
  }

  private static SessionFile.ToolCallRecord call(ToolCall c) {
    return new SessionFile.ToolCallRecord(c.id(), c.name(), c.argumentsJson());
  }

  private static ToolCall call(SessionFile.ToolCallRecord c) {
    return new ToolCall(c.id(), c.name(), c.arguments());
  }

  private static SessionFile.Message message(ChatMessage m) {
    if (m instanceof ChatMessage.User u) {
      return new SessionFile.Message("user", u.text(), null, null, null, null, null, u.images().isEmpty() ? null
          : u.images().stream().map(i -> new SessionFile.ImageRecord(i.mediaType(), i.base64(), i.name())).toList());
    }
    if (m instanceof ChatMessage.Assistant a) {
      List<SessionFile.ToolCallRecord> calls = a.toolCalls().isEmpty() ? null
          : a.toolCalls().stream().map(SessionCodec::call).toList();
      List<SessionFile.ReasoningRecord> reasoning = a.reasoning().isEmpty() ? null : a.reasoning().stream()
          .map(r -> new SessionFile.ReasoningRecord(r.text(), r.signature(), r.redacted())).toList();
      return new SessionFile.Message("assistant", a.text(), calls, null, null, null, reasoning);
    }
    if (m instanceof ChatMessage.ToolResult r) {
      return new SessionFile.Message("tool", r.content(), null, r.toolCallId(), r.toolName(), r.isError());
    }
    ChatMessage.System sys = (ChatMessage.System) m;
    return new SessionFile.Message("system", sys.text(), null, null, null, null);
  }

  private static ChatMessage message(SessionFile.Message m) {
    String text = m.text() == null ? "" : m.text();
    return switch (m.role() == null ? "" : m.role()) {
      case "user" -> new ChatMessage.User(text, m.images() == null ? List.of() : m.images().stream()
          .map(i -> new ChatMessage.Image(required(i.mediaType(), "an image's mediaType"), required(i.data(), "an image's data"),
              i.name())).toList());
      case "assistant" -> new ChatMessage.Assistant(text,
          m.toolCalls() == null ? List.of() : m.toolCalls().stream().map(SessionCodec::call).toList(),
          m.reasoning() == null ? List.of() : m.reasoning().stream()
              .map(r -> new ChatMessage.Reasoning(r.text(), r.signature(), r.redacted())).toList());
      case "tool" -> new ChatMessage.ToolResult(m.toolCallId(), m.toolName(), text, Boolean.TRUE.equals(m.isError()));
      case "system" -> new ChatMessage.System(text);
      default -> throw new SessionException(ErrorKind.LOST, "a message with an unknown role \"" + m.role() + "\"");
    };
  }

  // ------------------------------------------------------------------------ transcripts

  private static List<SessionFile.Entry> entries(List<Event> events, List<SessionFile.Message> messages) {
    if (events == null) {
      return null;
    }
    Map<String, String> toolMessages = new HashMap<>();
    for (SessionFile.Message m : messages) {
      if ("tool".equals(m.role()) && m.toolCallId() != null) {
        toolMessages.put(m.toolCallId(), m.text());
      }
    }
    List<SessionFile.Entry> entries = new ArrayList<>();
    for (Event event : events) {
      if (event instanceof Event.TurnStarted e) {
        entries.add(entry("started", e.prompt()));
      } else if (event instanceof Event.ReasoningDelta e) {
        entries.add(entry("reasoning", e.text()));
      } else if (event instanceof Event.AssistantDelta e) {
        entries.add(entry("answer", e.text()));
      } else if (event instanceof Event.SteeringFolded e) {
        entries.add(entry("steering", e.text()));
      } else if (event instanceof Event.Warning e) {
        entries.add(entry("warning", e.message()));
      } else if (event instanceof Event.Error e) {
        // the kind rides in status: an error has no status of its own
        entries.add(new SessionFile.Entry("error", e.message(), null, null, null, null, e.kind().code()));
      } else if (event instanceof Event.ToolCallProposed e) {
        entries.add(new SessionFile.Entry("tool", null, call(e.call()), e.summary(), e.preview(), null, null));
      } else if (event instanceof Event.ToolCallFinished e) {
        // the tool's message holds the same text already: written once
        String text = e.result().equals(toolMessages.get(e.call().id())) ? null : e.result();
        entries.add(new SessionFile.Entry("result", text, call(e.call()), null, null, e.isError(), null));
      } else if (event instanceof Event.CheckpointRestored e) {
        entries.add(entry("restored", e.result().summary())); // a revert's or one-sided restore's own notice
      } else if (event instanceof Event.TurnFinished e) {
        entries.add(new SessionFile.Entry("finished", null, null, null, null, null, e.status().name().toLowerCase(Locale.ROOT)));
      }
    }
    return entries;
  }

  private static SessionFile.Entry entry(String kind, String text) {
    return new SessionFile.Entry(kind, text, null, null, null, null, null);
  }

  /**
   * What each checkpoint of a tab record showed, as the events that showed it: its transcript, or
   * for a checkpoint saved before transcripts were kept, what its messages tell (prompt, answers,
   * tool calls with their results, steering, a compaction's summary, how it ended).
   */
  public static Map<Integer, List<Event>> history(SessionFile.Tab tab) {
    Map<Integer, List<Event>> history = new HashMap<>();
    for (SessionFile.Checkpoint cp : tab.checkpoints()) {
      if (cp.number() == 0) {
        continue;
      }
      history.put(cp.number(), cp.transcript() != null ? events(cp) : derived(cp));
    }
    return history;
  }

  private static List<Event> events(SessionFile.Checkpoint cp) {
    int n = cp.number();
    Map<String, String> toolMessages = new HashMap<>();
    for (SessionFile.Message m : cp.messages()) {
      if ("tool".equals(m.role()) && m.toolCallId() != null) {
        toolMessages.put(m.toolCallId(), m.text());
      }
    }
    List<Event> events = new ArrayList<>();
    for (SessionFile.Entry e : cp.transcript()) {
      String text = e.text() == null ? "" : e.text();
      switch (e.kind() == null ? "" : e.kind()) {
        case "started" -> events.add(new Event.TurnStarted(n, cp.parent(), text));
        case "reasoning" -> events.add(new Event.ReasoningDelta(n, text));
        case "answer" -> events.add(new Event.AssistantDelta(n, text));
        case "steering" -> events.add(new Event.SteeringFolded(n, text));
        case "warning" -> events.add(new Event.Warning(text));
        case "error" -> events.add(new Event.Error(ErrorKind.ofCode(e.status()), text));
        case "tool" -> events.add(new Event.ToolCallProposed(n, view(required(e.call(), cp)), e.summary() == null ? "" : e.summary(),
            e.preview() == null ? "" : e.preview(), false));
        case "result" -> {
          ToolCallView call = view(required(e.call(), cp));
          String result = e.text() != null ? e.text() : toolMessages.getOrDefault(call.id(), "");
          events.add(new Event.ToolCallFinished(n, call, result, Boolean.TRUE.equals(e.isError())));
        }
        case "finished" -> events.add(new Event.TurnFinished(n, ProtocolViews.status(status(e.status())), Optional.empty()));
        // shown again as the checkpoint it made (its live path ends there); where the tab stands comes after
        case "restored" -> events.add(new Event.CheckpointRestored(new RestoreOutcome(true,
            cp.parent(), -1, List.of(), List.of(), List.of(), Optional.empty(), List.of(n), text), Optional.empty(), ""));
        default -> throw new SessionException(ErrorKind.LOST, "checkpoint #" + n + " has a transcript line of an unknown kind \"" + e.kind() + "\"");
      }
    }
    return events;
  }

  private static String required(String value, String what) {
    if (value == null) {
      throw new SessionException(ErrorKind.LOST, what + " is missing");
    }
    return value;
  }

  private static SessionFile.ToolCallRecord required(SessionFile.ToolCallRecord call, SessionFile.Checkpoint cp) {
    if (call == null || call.id() == null || call.name() == null) {
      throw new SessionException(ErrorKind.LOST, "checkpoint #" + cp.number() + " has a transcript line without its tool call");
    }
    return call;
  }

  private static List<Event> derived(SessionFile.Checkpoint cp) {
    int n = cp.number();
    List<Event> events = new ArrayList<>();
    Map<String, ToolCall> calls = new HashMap<>();
    boolean prompted = false;
    for (SessionFile.Message record : cp.messages()) {
      ChatMessage m = message(record);
      if (m instanceof ChatMessage.User user) {
        String shown = TypedPrompt.shown(user.text()); // a custom command as typed
        events.add(prompted ? new Event.SteeringFolded(n, shown) : new Event.TurnStarted(n, cp.parent(), shown));
        prompted = true;
      } else if (m instanceof ChatMessage.Assistant assistant) {
        if (!prompted) {
          events.add(new Event.TurnStarted(n, cp.parent(), "(continued)"));
          prompted = true;
        }
        if (!assistant.reasoningText().isBlank()) {
          events.add(new Event.ReasoningDelta(n, assistant.reasoningText()));
        }
        if (!assistant.text().isBlank()) {
          events.add(new Event.AssistantDelta(n, assistant.text()));
        }
        for (ToolCall call : assistant.toolCalls()) {
          calls.put(call.id(), call);
          events.add(new Event.ToolCallProposed(n, ProtocolViews.toolCall(call), target(call), "", false));
        }
      } else if (m instanceof ChatMessage.System compacted) {
        events.add(new Event.TurnStarted(n, cp.parent(), "/compact"));
        prompted = true;
        events.add(new Event.AssistantDelta(n, compacted.text().replace(Compaction.HEADING, "")));
      } else if (m instanceof ChatMessage.ToolResult result && calls.containsKey(result.toolCallId())) {
        events.add(new Event.ToolCallFinished(n, ProtocolViews.toolCall(calls.get(result.toolCallId())), result.content(),
            result.isError()));
      }
    }
    CheckpointStatus status = status(cp.status());
    if (prompted && status != CheckpointStatus.RUNNING) {
      events.add(new Event.TurnFinished(n, ProtocolViews.status(status), Optional.empty()));
    }
    return events;
  }

  /** What a saved tool call was about: its path or command, read from its arguments. */
  private static String target(ToolCall call) {
    try {
      JsonNode args = new ObjectMapper().readTree(call.argumentsJson());
      for (String field : new String[] {"path", "command", "pattern"}) {
        if (args != null && args.path(field).isTextual()) {
          return args.path(field).asText();
        }
      }
    } catch (JsonProcessingException e) {
      // shown without a target
    }
    return "";
  }
}
