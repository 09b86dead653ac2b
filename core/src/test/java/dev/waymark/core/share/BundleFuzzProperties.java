package dev.waymark.core.share;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.TagNames;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

/**
 * Random and hostile session files and bundles (#48): paths with {@code ..}, absolute, into
 * {@code .git}, through a link, control characters; tags and saves naming another tab or no ref
 * at all; tab ids that are another tab's or no id; huge and negative numbers; cut files. Imported
 * into a clone that has a tab of its own, then opened, undone and redone with {@code --force},
 * none ever writes outside the project or into its {@code .git}, touches another tab's tags, or
 * fails in more than one line.
 */
class BundleFuzzProperties {
  static final int TRIES = 12;

  private Path temp;
  private BundleFixture exported;
  private SessionFile session;
  private Path template;
  private int tryNumber;

  /** One exported session for every try, and a second clone with a tab of its own to copy for each. */
  @BeforeProperty
  void exportOnce() throws Exception {
    temp = Files.createTempDirectory("bundle-fuzz");
    exported = new BundleFixture(temp);
    session = exported.exportedSession();
    Workspace mine = exported.workspace(exported.importer);
    WorkspaceTab own = mine.newTab();
    BundleFixture.prompt(mine, own, "write b.txt");
    mine.save(null);
    mine.close();
    exported.importer.close();
    Files.createDirectories(exported.second.resolve(".git/hooks"));
    Files.writeString(exported.second.resolve(".git/config"), "[core]\n");
    Files.createDirectories(temp.resolve("outside"));
    Files.createSymbolicLink(exported.second.resolve("linked"), temp.resolve("outside"));
    template = temp.resolve("template");
    copy(exported.second, template.resolve("second"));
    copy(temp.resolve("home-two"), template.resolve("home-two"));
  }

  @AfterProperty
  void cleanUp() throws IOException {
    exported.close();
    delete(temp);
  }

  /** A hostile or random session's change, tag, save or id: the value and where it goes. */
  record Damage(String where, String value, int number) {}

  @Provide
  Arbitrary<String> paths() {
    Arbitrary<String> segments = Arbitraries.of("a", "..", ".", "", ".git", ".GiT", "linked", "hooks", "x\ny", "\u001b[2J",
        "b.txt", "src", "pwned.txt");
    Arbitrary<String> joined = segments.list().ofMinSize(1).ofMaxSize(5).map(s -> String.join("/", s));
    return Arbitraries.oneOf(joined, Arbitraries.of("../pwned.txt", "../../pwned.txt", ".git/hooks/post-checkout",
        ".git/config", "linked/pwned.txt", "/tmp/bundle-fuzz-pwned.txt", "OUTSIDE/pwned.txt", "a.txt", "c.txt"),
        joined.map(p -> "/" + p));
  }

  @Provide
  Arbitrary<List<Damage>> damages() {
    return damage().list().ofMinSize(1).ofMaxSize(4);
  }

  private Arbitrary<Damage> damage() {
    Arbitrary<String> names = Arbitraries.oneOf(Arbitraries.of("VICTIM", "refs/heads/main", "refs/tags/waymark/VICTIM/1",
        "../VICTIM/1", "VICTIM/1", "", "x/../../y", "ok-name", "saved/../1"), Arbitraries.strings().ofMaxLength(12));
    Arbitrary<Integer> numbers = Arbitraries.oneOf(Arbitraries.integers().between(-3, 5),
        Arbitraries.of(Integer.MAX_VALUE, Integer.MIN_VALUE, 10_000_000, 10_000_001));
    Arbitrary<String> where = Arbitraries.of("path", "path", "path", "tag", "save", "tabId", "subagentOf", "live", "redo",
        "number", "copies", "base", "head", "cutSession", "cutBundle", "kind", "commit");
    return Combinators.combine(where, Arbitraries.oneOf(paths(), names), numbers).as(Damage::new);
  }

  /**
   * jqwik's tries are fixed where it reads its annotation, so the tries are drawn here: {@value
   * #TRIES} in CI, {@code -Dproperties.tries=N} for a longer run; a failing try names its damages.
   */
  @Example
  void aHostileSessionOrBundleNeverWritesOutsideTheProjectNorTouchesAnotherTabAndFailsInOneLine() throws Exception {
    List<List<Damage>> tries = damages().sampleStream().limit(Integer.getInteger("properties.tries", TRIES)).toList();
    for (List<Damage> damages : tries) {
      try {
        importedAndUsed(damages);
      } catch (AssertionError e) {
        throw new AssertionError("with " + damages + ": " + e.getMessage(), e);
      }
    }
  }

  private void importedAndUsed(List<Damage> damages) throws Exception {
    Path second = exported.second;
    Path home = temp.resolve("home-two-" + ++tryNumber); // a fresh one: the last try's may still be saving
    delete(second);
    copy(template.resolve("second"), second);
    copy(template.resolve("home-two"), home);
    Map<String, String> outsideBefore = files(temp, second, template);
    Map<String, String> gitBefore = files(second.resolve(".git"));

    try (ShadowStore importer = ShadowStore.open(second, new WaymarkHome(home), RetentionPolicy.DEFAULT)) {
      Map<String, String> tagsBefore = tags(importer);
      String victim = importer.tabIds().iterator().next();
      Path bundle = crafted(damages, victim, tagsBefore.get(TagNames.tabPrefix(victim) + 1));

      String imported = null;
      try {
        imported = SessionShare.importFrom(importer, SessionStore.of(importer), bundle).session().id();
      } catch (RuntimeException e) {
        assertFailsInOneLine(e);
      }
      if (imported != null) {
        undoAndRedoEverything(importer, imported);
      }

      Map<String, String> tagsAfter = tags(importer);
      tagsBefore.forEach((ref, commit) -> assertThat(tagsAfter.get(ref)).as("%s is untouched", ref).isEqualTo(commit));
      assertThat(tagsAfter.keySet().stream().filter(ref -> !tagsBefore.containsKey(ref)))
          .as("new tags are the imported tabs' own").allMatch(ref -> !ref.startsWith(TagNames.tabPrefix(victim)));
    }
    assertThat(files(temp, second, template)).as("nothing outside the project changed").isEqualTo(outsideBefore);
    assertThat(files(second.resolve(".git"))).as("the project's .git is untouched").isEqualTo(gitBefore);
    assertThat(Path.of("/tmp/bundle-fuzz-pwned.txt")).doesNotExist();
  }

  private void undoAndRedoEverything(ShadowStore importer, String id) throws Exception {
    Workspace there = BundleFixture.newWorkspace(importer);
    List<WorkspaceTab> tabs;
    try {
      tabs = there.open(there.files().load(id)).tabs();
    } catch (RuntimeException e) {
      there.close();
      assertFailsInOneLine(e);
      return;
    }
    for (WorkspaceTab tab : tabs) {
      for (Command command : List.of(new Command.Undo(OptionalInt.of(0), true), new Command.Redo(true),
          new Command.Undo(OptionalInt.empty(), true), new Command.Redo(true))) {
        Event e = BundleFixture.run(there, tab, ev -> ev instanceof Event.CheckpointRestored || ev instanceof Event.Error, command);
        if (e instanceof Event.Error error) {
          assertThat(error.message()).as("one line").doesNotContain("\n");
        }
      }
    }
    there.close();
  }

  /** The exported session with {@code damages} done to it, in a bundle, perhaps cut. */
  private Path crafted(List<Damage> damages, String victim, String victimCommit) throws IOException {
    SessionFile.Tab tab = session.tabs().get(0);
    List<SessionFile.Checkpoint> checkpoints = new ArrayList<>(tab.checkpoints());
    String tabId = tab.tabId();
    String subagentOf = null;
    int live = tab.live();
    List<Integer> redo = tab.redo();
    Map<String, String> saves = new TreeMap<>(tab.saves());
    Map<String, String> base = new TreeMap<>();
    Map<String, Object> baseJson = new TreeMap<>(Map.of("project", "elsewhere", "files", base));
    int cutSession = -1;
    int cutBundle = -1;
    for (Damage d : damages) {
      String value = d.value().replace("VICTIM", victim).replace("OUTSIDE", temp.resolve("outside").toString());
      int at = Math.floorMod(d.number(), checkpoints.size());
      SessionFile.Checkpoint cp = checkpoints.get(at);
      switch (d.where()) {
        case "path" -> checkpoints.set(at, with(cp, cp.number(), cp.tag(), cp.commit(), List.of(new SessionFile.Change(value,
            new SessionFile.Version("absent", null), new SessionFile.Version("regular", blob(checkpoints))))));
        case "tag" -> checkpoints.set(at, with(cp, cp.number(), value, cp.commit(), cp.changes()));
        case "commit" -> checkpoints.set(at, with(cp, cp.number(), cp.tag(), value.isEmpty() ? victimCommit : value, cp.changes()));
        case "number" -> checkpoints.set(at, with(cp, d.number(), cp.tag(), cp.commit(), cp.changes()));
        case "kind" -> checkpoints.set(at, with(cp, cp.number(), cp.tag(), cp.commit(), List.of(new SessionFile.Change("a.txt",
            new SessionFile.Version(value, null), new SessionFile.Version("regular", blob(checkpoints), value)))));
        case "save" -> saves.put(value, tab.checkpoints().get(tab.checkpoints().size() - 1).commit());
        case "tabId" -> tabId = value;
        case "subagentOf" -> subagentOf = value;
        case "live" -> live = d.number();
        case "redo" -> redo = List.of(d.number());
        case "copies" -> {
          int copies = Math.floorMod(d.number(), 3000);
          for (int i = 0; i < copies; i++) {
            SessionFile.Checkpoint last = checkpoints.get(checkpoints.size() - 1);
            checkpoints.add(with(last, last.number() + 1, last.tag(), last.commit(), last.changes()));
          }
        }
        case "base" -> base.put(value, "absent");
        case "head" -> baseJson.put("head", value);
        case "cutSession" -> cutSession = Math.floorMod(d.number(), 4000);
        case "cutBundle" -> cutBundle = Math.floorMod(d.number(), 4000);
        default -> throw new IllegalStateException(d.where());
      }
    }
    SessionFile.Tab damaged = new SessionFile.Tab(tabId, tab.title(), tab.provider(), tab.model(), tab.input(), live, live, redo,
        checkpoints, saves, tab.closed(), tab.approval(), subagentOf);
    SessionFile file = new SessionFile(session.schemaVersion(), session.id(), session.name(), session.project(),
        session.created(), session.updated(), tabId, List.of(damaged), session.formerNames());
    byte[] baseBytes = BundleFixture.JSON.writeValueAsBytes(baseJson);
    byte[] sessionJson = BundleFixture.json(file);
    if (cutSession >= 0 && cutSession < sessionJson.length) {
      sessionJson = Arrays.copyOf(sessionJson, cutSession);
    }
    Path bundle = exported.bundle(List.of(tab.tabId()), sessionJson, baseBytes, "fuzz");
    if (cutBundle >= 0) {
      byte[] whole = Files.readAllBytes(bundle);
      Files.write(bundle, Arrays.copyOf(whole, Math.min(whole.length, cutBundle)));
    }
    return bundle;
  }

  private static String blob(List<SessionFile.Checkpoint> checkpoints) {
    return checkpoints.stream().flatMap(cp -> cp.changes().stream()).map(c -> c.after().blob()).filter(b -> b != null)
        .findFirst().orElse("0000000000000000000000000000000000000000");
  }

  private static SessionFile.Checkpoint with(SessionFile.Checkpoint cp, int number, String tag, String commit,
      List<SessionFile.Change> changes) {
    return new SessionFile.Checkpoint(number, cp.parent(), cp.status(), cp.created(), commit, tag, cp.saved(), changes,
        cp.messages(), cp.draft(), cp.pending(), cp.transcript());
  }

  private static void assertFailsInOneLine(RuntimeException e) {
    assertThat(e).isInstanceOfAny(SessionException.class, CheckpointException.class);
    String message = e.getMessage();
    if (e instanceof SessionException s && s.kind() == ErrorKind.CLASH) {
      // the refusal that names the files that differ: its first line says what happened
      message = message.lines().findFirst().orElse("");
      assertThat(message).contains("Nothing was imported");
    }
    assertThat(message).as("one line").isNotBlank().doesNotContain("\n");
  }

  /** Every tag of the store, by name, with its commit. */
  private static Map<String, String> tags(ShadowStore store) throws IOException {
    Map<String, String> tags = new TreeMap<>();
    try (Repository repo = new FileRepositoryBuilder().setGitDir(store.shadowDirectory().toFile()).setMustExist(true).build()) {
      for (Ref ref : repo.getRefDatabase().getRefsByPrefix("refs/")) {
        tags.put(ref.getName(), ref.getObjectId().name());
      }
    }
    return tags;
  }

  /** Every file under {@code root} but those under {@code skipped}, with its size and modification time. */
  private static Map<String, String> files(Path root, Path... skipped) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        // Waymark's homes are its own to write; the bundles are the test's
        boolean home = root.relativize(p).toString().startsWith("home-");
        if (!home && Stream.of(skipped).noneMatch(p::startsWith) && !p.getFileName().toString().endsWith(".bundle")) {
          files.put(root.relativize(p).toString(), Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? "dir"
              : Files.size(p) + "@" + Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS));
        }
      }
    }
    return files;
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isSymbolicLink(p)) {
          Files.createSymbolicLink(target, Files.readSymbolicLink(p));
        } else if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }

  private static void delete(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
