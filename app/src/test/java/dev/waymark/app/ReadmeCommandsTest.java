package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/** The README's "What you can do today" block names every command, action and option of {@code waymark} itself. */
class ReadmeCommandsTest {
  private static final CommandLine CLI = new CommandLine(new Main(new WaymarkHome(Path.of("unused")), Map.of()));

  @Test
  void everyCommandAndEachOfItsActionsIsInTheBlock() throws Exception {
    List<String> block = block();
    List<String> missing = new ArrayList<>();
    CLI.getSubcommands().forEach((name, command) -> {
      if (name.equals("help")) {
        return;
      }
      String lines = String.join("\n", block.stream().filter(l -> l.startsWith("waymark " + name + " ")).toList());
      if (lines.isEmpty()) {
        missing.add("waymark " + name);
        return;
      }
      for (String word : actions(command.getCommandSpec())) {
        if (!Pattern.compile("(?<![\\w-])" + Pattern.quote(word) + "(?![\\w-])").matcher(lines).find()) {
          missing.add("waymark " + name + " " + word);
        }
      }
    });
    assertThat(missing).as("missing from the README's block:%n%s", String.join("\n", block)).isEmpty();
  }

  @Test
  void everyOptionOfTheInterfaceItselfIsInTheBlock() throws Exception {
    String interfaceLines = String.join("\n", block().stream().filter(l -> !l.matches("waymark [a-z]+ .*")
        || l.startsWith("waymark --")).toList());
    List<String> missing = new ArrayList<>();
    for (OptionSpec option : CLI.getCommandSpec().options()) {
      boolean ownOption = option.userObject() instanceof Field field && field.getDeclaringClass() == Main.class;
      if (ownOption && Arrays.stream(option.names()).noneMatch(interfaceLines::contains)) {
        missing.add(option.longestName());
      }
    }
    assertThat(missing).isEmpty();
  }

  /** A command's picocli subcommands, and the words its ACTION parameter lists ("list (default), delete or export"). */
  private static List<String> actions(CommandSpec spec) {
    List<String> words = new ArrayList<>(spec.subcommands().keySet());
    for (PositionalParamSpec parameter : spec.positionalParameters()) {
      if (parameter.paramLabel().equals("ACTION")) {
        String listed = String.join(" ", parameter.description()).replaceAll("\\([^)]*\\)", "");
        for (String word : listed.split(",\\s*|\\s+or\\s+")) {
          words.add(word.trim());
        }
      }
    }
    return words;
  }

  private static List<String> block() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    int section = readme.indexOf("## What you can do today");
    int start = readme.indexOf("```\n", section) + 4;
    return readme.substring(start, readme.indexOf("```", start)).lines().toList();
  }
}
