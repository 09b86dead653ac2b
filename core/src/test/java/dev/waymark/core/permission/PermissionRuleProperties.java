package dev.waymark.core.permission;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;

/**
 * Command lines made of words and every shell operator, judged against a plain reference: an allow
 * prefix covers a line only when the line starts with the prefix as a word and holds no operator
 * that could start another command; a deny prefix refuses a line when any command in it starts so.
 */
@Tag("load")
class PermissionRuleProperties {
  private static final List<String> OPERATORS = List.of(";", "&&", "||", "|", "&", "`", "$(", ")", "\n", "<(", " 2>&1");

  @Provide
  Arbitrary<String> lines() {
    Arbitrary<String> word = Arbitraries.of("npm", "test", "rm", "-rf", "x", "git", "push", "ls", "echo", "'a;b'", "--x=1");
    Arbitrary<String> piece = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(4, word.map(w -> " " + w)),
        net.jqwik.api.Tuple.of(1, Arbitraries.of(OPERATORS)));
    return piece.list().ofMinSize(1).ofMaxSize(8).map(parts -> String.join("", parts).strip());
  }

  /** The reference: does the line hold anything but words and the stream join {@code 2>&1}? */
  private static boolean chainsReference(String line) {
    String plain = line.replace("2>&1", " ");
    for (String op : List.of(";", "&", "|", "`", "$(", "\n", "<(")) {
      if (plain.contains(op)) {
        return true;
      }
    }
    return false;
  }

  @Property(tries = 2000)
  void anAllowPrefixCoversOnlyUnchainedLinesStartingWithItAsAWord(@ForAll("lines") String line,
      @ForAll("prefixes") String prefix) {
    boolean allowed = PermissionRule.shellPrefix(prefix).allows("run_shell", Optional.of(line));
    boolean expected = !chainsReference(line) && (line.equals(prefix) || line.startsWith(prefix + " "));
    assertThat(allowed).as("%s allows %s", prefix, line).isEqualTo(expected);
  }

  @Property(tries = 2000)
  void aDenyPrefixRefusesEveryLineInWhichAnyCommandStartsWithIt(@ForAll("lines") String line) {
    boolean denied = PermissionRule.shellPrefix("rm").denies("run_shell", Optional.of(line));
    boolean expected = false;
    for (String part : line.replace("2>&1", " ").split(";|&&|\\|\\||\\||&|`|\\$\\(|<\\(|\\n")) {
      String command = part.strip().replaceAll("^[({]+\\s*", "");
      expected |= command.equals("rm") || command.startsWith("rm ");
    }
    assertThat(denied).as("rm:* denies %s", line).isEqualTo(expected);
  }

  @Property(tries = 1000)
  void theSuggestedRuleAllowsTheCommandItWasMadeForAndNeverABareDangerousProgram(@ForAll("lines") String line) {
    PermissionRule rule = PermissionRule.suggest("run_shell", Optional.of(line));
    assertThat(rule.allows("run_shell", Optional.of(line))).as("%s for %s", rule, line).isTrue();
    if (rule.prefix()) {
      assertThat(rule.command().orElseThrow().split(" ")[0]).isNotIn("rm", "sh", "bash", "curl", "xargs");
    }
  }

  @Provide
  Arbitrary<String> prefixes() {
    return Arbitraries.of("npm", "npm test", "git push", "rm", "ls");
  }
}
