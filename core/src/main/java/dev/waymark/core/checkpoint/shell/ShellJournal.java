package dev.waymark.core.checkpoint.shell;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.WaymarkHome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * "A shell command of tab T, checkpoint #n, started from the stat cache as saved": written before
 * the command runs and removed once its changes are kept under the checkpoint's tag. One left by
 * a process that died is found when the tab is opened again, and the command's changes are
 * recorded then (see {@link ShellChangeTracker#recover}), so no kill loses them.
 */
public final class ShellJournal {
  private static final Logger LOG = LoggerFactory.getLogger(ShellJournal.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One running command: its tab and checkpoint, the process that ran it, when it started, the
   * {@code .gitignore} files as they were then (directory → text), so that the changes are judged
   * by the rules of the command's start, and the command's {@link CommandMark} ("" in a journal
   * written before marks were kept; its session once the command started).
   */
  public record Entry(String tab, int checkpoint, long pid, long pidStartMillis, long startMillis, long cacheGeneration,
      long maxFileSize, Map<String, String> ignoreFiles, String mark, long session, long sessionStartMillis) {
    /** The command's mark with its session, if the journal names one. */
    Optional<CommandMark> commandMark() {
      return mark.isEmpty() ? Optional.empty() : CommandMark.parse(mark)
          .map(m -> new CommandMark(m.value(), session, sessionStartMillis));
    }
    boolean ownerAlive() {
      return ProcessHandle.of(pid)
          .filter(p -> p.info().startInstant().map(i -> Math.abs(i.toEpochMilli() - pidStartMillis) < 2_000).orElse(true))
          .isPresent();
    }
  }

  private final Path dir;

  public ShellJournal(Path dir) {
    this.dir = dir;
  }

  public Path write(String tab, int checkpoint, long startMillis, long cacheGeneration, long maxFileSize,
      Map<String, String> ignoreFiles, CommandMark mark) throws IOException {
    WaymarkHome.createPrivateDirectories(dir);
    ProcessHandle self = ProcessHandle.current();
    ObjectNode node = JSON.createObjectNode();
    node.put("version", 1).put("tab", tab).put("checkpoint", checkpoint).put("pid", self.pid())
        .put("pidStart", self.info().startInstant().map(i -> i.toEpochMilli()).orElse(0L))
        .put("start", startMillis).put("cacheGeneration", cacheGeneration)
        .put("maxFileSize", maxFileSize).put("mark", mark.value());
    ObjectNode ignores = node.putObject("ignoreFiles");
    ignoreFiles.forEach(ignores::put);
    Path file = dir.resolve(tab + "-" + checkpoint + "-" + self.pid() + ".json");
    WaymarkHome.replacePrivate(file, JSON.writeValueAsBytes(node));
    return file;
  }

  /**
   * Adds to the journal {@code file} the session the command leads, now that it started: a job of
   * it that clears its environment is found by it after a kill.
   */
  static void started(Path file, CommandMark mark) {
    try {
      ObjectNode node = (ObjectNode) JSON.readTree(Files.readAllBytes(file));
      node.put("session", mark.session()).put("sessionStart", mark.sessionStartMillis());
      WaymarkHome.replacePrivate(file, JSON.writeValueAsBytes(node));
    } catch (IOException | ClassCastException e) {
      LOG.warn("could not note the session of the shell command of {}; a kill would leave its jobs that clear their "
          + "environment running", file, e);
    }
  }

  public Path directory() {
    return dir;
  }

  /**
   * Keeps the marks of the commands whose processes tab {@code tab} left running, while any may
   * run: a Waymark killed meanwhile leaves them for the tab's next holder, which stops them.
   */
  public void writeJobs(String tab, Set<String> marks) {
    try {
      WaymarkHome.createPrivateDirectories(dir);
      WaymarkHome.replacePrivate(jobsFile(tab), (String.join("\n", marks) + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      LOG.warn("could not keep the marks of tab {}'s background processes; a kill would leave them running", tab, e);
    }
  }

  public void clearJobs(String tab) {
    remove(jobsFile(tab));
  }

  /** The marks {@link #writeJobs} kept for {@code tab}, which are then forgotten. */
  public Set<String> takeJobs(String tab) {
    Path file = jobsFile(tab);
    try {
      Set<String> marks = new TreeSet<>(Files.readAllLines(file, StandardCharsets.UTF_8));
      marks.removeIf(mark -> CommandMark.parse(mark).isEmpty()); // only what CommandMark.encoded makes
      Files.deleteIfExists(file);
      return marks;
    } catch (NoSuchFileException none) {
      return Set.of();
    } catch (IOException e) {
      LOG.warn("could not read the marks of tab {}'s background processes", tab, e);
      return Set.of();
    }
  }

  private Path jobsFile(String tab) {
    return dir.resolve(tab + ".jobs");
  }

  public static void remove(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      LOG.warn("could not remove {}: {}", file, e.toString());
    }
  }

  /** Whether a live process runs the command marked {@code mark} here (its journal names the mark). */
  public boolean running(String mark) {
    return any(file -> read(file).filter(e -> e.mark().equals(mark) && e.ownerAlive()).isPresent());
  }

  /** Whether any tab has a journal whose process is gone: its recovery needs the cache as that process left it. */
  public boolean anyOrphans() {
    return any(file -> read(file).filter(e -> !e.ownerAlive()).isPresent());
  }

  /** Whether any command of any process, other than the one journalled in {@code mine} (may be null), is in flight or waits to be recovered. */
  public boolean anyBut(Path mine) {
    return any(file -> !file.equals(mine));
  }

  /** Whether a journal file matches; true when the journals cannot be listed (the safe answer for both callers). */
  private boolean any(Predicate<Path> matches) {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.json")) {
      for (Path file : files) {
        if (matches.test(file)) {
          return true;
        }
      }
    } catch (NoSuchFileException none) {
      return false;
    } catch (IOException e) {
      LOG.warn("could not list {}: {}", dir, e.toString());
      return true;
    }
    return false;
  }

  /** The stat cache generations the journals of every tab name (a recovery compares with exactly that one). */
  public Set<Long> generationsInUse() {
    Set<Long> generations = new HashSet<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.json")) {
      for (Path file : files) {
        read(file).ifPresent(e -> generations.add(e.cacheGeneration()));
      }
    } catch (NoSuchFileException none) {
      return generations;
    } catch (IOException e) {
      LOG.warn("could not list {}: {}", dir, e.toString());
    }
    return generations;
  }

  /**
   * The journals of {@code tab} that another process wrote, with their files, for the tab's
   * holder: commands run only in the process holding their tab, so each of these was left by an
   * earlier holder that stopped before recording (its process id may still show for a moment
   * after a kill, which must not matter). This process's own are its running commands'.
   */
  public List<Map.Entry<Path, Entry>> leftInTab(String tab) {
    long self = ProcessHandle.current().pid();
    List<Map.Entry<Path, Entry>> found = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, tab + "-*.json")) {
      for (Path file : files) {
        read(file).filter(e -> e.tab().equals(tab) && e.pid() != self).ifPresent(e -> found.add(Map.entry(file, e)));
      }
    } catch (NoSuchFileException none) {
      return found;
    } catch (IOException e) {
      LOG.warn("could not list {}: {}", dir, e.toString());
    }
    return found;
  }

  private static Optional<Entry> read(Path file) {
    try {
      var n = JSON.readTree(Files.readAllBytes(file));
      Map<String, String> ignores = new LinkedHashMap<>();
      n.path("ignoreFiles").fields().forEachRemaining(f -> ignores.put(f.getKey(), f.getValue().asText()));
      return Optional.of(new Entry(n.path("tab").asText(), n.path("checkpoint").asInt(), n.path("pid").asLong(),
          n.path("pidStart").asLong(), n.path("start").asLong(), n.path("cacheGeneration").asLong(), n.path("maxFileSize").asLong(10L << 20), ignores,
          n.path("mark").asText(""), n.path("session").asLong(0), n.path("sessionStart").asLong(0)));
    } catch (IOException | RuntimeException e) {
      LOG.warn("ignoring a damaged shell journal {}: {}", file, e.toString());
      return Optional.empty();
    }
  }
}
