package dev.waymark.tui.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** {@code /bisect [--good A] [--bad B] CMD}: the options first, the command kept as typed. */
class BisectLineTest {
  @Test
  void theCommandKeepsItsSpacesAndQuotesAndTheOptionsComeFirst() {
    assertThat(SlashCommand.parse("/bisect --good #2 --bad 7 grep -q  'a  b' x.txt", 7, "s"))
        .isEqualTo(new SlashCommand.Parsed.Bisect("grep -q  'a  b' x.txt", OptionalInt.of(2), OptionalInt.of(7)));
    assertThat(SlashCommand.parse("/bisect make test", 3, "s"))
        .isEqualTo(new SlashCommand.Parsed.Bisect("make test", OptionalInt.empty(), OptionalInt.empty()));
    // an option after the command is the command's own
    assertThat(SlashCommand.parse("/bisect ./run --good 1", 3, "s"))
        .isEqualTo(new SlashCommand.Parsed.Bisect("./run --good 1", OptionalInt.empty(), OptionalInt.empty()));
  }

  @Test
  void noCommandOrABadNumberIsTheUsage() {
    assertThat(SlashCommand.parse("/bisect", 3, "s")).isInstanceOf(SlashCommand.Parsed.Invalid.class)
        .hasToString(new SlashCommand.Parsed.Invalid(BisectLine.USAGE).toString());
    assertThat(SlashCommand.parse("/bisect --good 1", 3, "s")).isInstanceOf(SlashCommand.Parsed.Invalid.class);
    assertThat(((SlashCommand.Parsed.Invalid) SlashCommand.parse("/bisect --bad x make", 3, "s")).message())
        .contains("Not a checkpoint number for --bad");
  }
}
