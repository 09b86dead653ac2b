package dev.waymark.app;

import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code waymark store}: where a project's checkpoints live, and which tabs have some. */
@Command(
    name = "store",
    mixinStandardHelpOptions = true,
    description = {
      "Show the checkpoint store (shadow repository) of a project and the tabs that have checkpoints in it; "
          + "a project with none yet gets none made. The project's own .git is never written."
    })
final class StoreCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @CommandLine.ParentCommand Invocation main;

  @Option(names = {"-C", "--directory"}, paramLabel = "DIR", description = "The project directory (default: the current one).")
  Path directory = Path.of("");

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    if (!ShadowStore.exists(directory.toAbsolutePath(), main.home())) {
      // only looking: a project nobody ran Waymark on must not get a store from being asked about
      out.println("Project:           " + directory.toAbsolutePath().normalize());
      out.println("Shadow repository: none yet; the first checkpoint makes it in "
          + ShadowStore.location(directory.toAbsolutePath(), main.home()).resolve("shadow.git"));
      out.println("Tabs with checkpoints: none yet");
      return 0;
    }
    try (ShadowStore store = ShadowStore.open(directory.toAbsolutePath(), main.home(), RetentionPolicy.DEFAULT)) {
      out.println("Project:           " + store.projectDirectory());
      out.println("Shadow repository: " + store.shadowDirectory());
      for (String note : store.recovered()) {
        out.println("Recovered:         " + note);
      }
      Set<String> tabs = store.tabIds();
      out.println("Tabs with checkpoints: " + (tabs.isEmpty() ? "none yet" : String.join(", ", tabs)));
      out.println("List them with:    git --git-dir=" + store.shadowDirectory() + " tag -l 'waymark/*'");
    }
    return 0;
  }
}
