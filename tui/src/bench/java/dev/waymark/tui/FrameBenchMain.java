package dev.waymark.tui;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/** Runs {@link FrameBench} and prints each frame's cost with 10,000 messages as a ratio of its cost with 10. */
public final class FrameBenchMain {
  private FrameBenchMain() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : "target/bench");
    Files.createDirectories(out);
    Collection<RunResult> results = new Runner(new OptionsBuilder()
        .include(FrameBench.class.getName())
        .resultFormat(ResultFormatType.JSON)
        .result(out.resolve("frame.json").toString())
        .build()).run();
    Map<String, Map<Integer, double[]>> byBenchmark = new TreeMap<>();
    for (RunResult r : results) {
      String name = r.getParams().getBenchmark().replaceAll(".*\\.", "");
      int messages = Integer.parseInt(r.getParams().getParam("messages"));
      var stats = r.getPrimaryResult().getStatistics();
      byBenchmark.computeIfAbsent(name, k -> new TreeMap<>())
          .put(messages, new double[] {stats.getMean(), stats.getMeanErrorAt(0.999)});
    }
    StringBuilder table = new StringBuilder();
    table.append("| frame | 10 messages (µs) | 10,000 messages (µs) | ratio 10,000 / 10 |\n");
    table.append("| --- | ---: | ---: | ---: |\n");
    for (var entry : byBenchmark.entrySet()) {
      double[] small = entry.getValue().get(10);
      double[] large = entry.getValue().get(10_000);
      if (small == null || large == null) {
        continue;
      }
      table.append(String.format(Locale.ROOT, "| %s | %.1f ± %.1f | %.1f ± %.1f | %.2f× |%n",
          entry.getKey(), small[0], small[1], large[0], large[1], large[0] / small[0]));
    }
    write(out.resolve("frame.md"), table.toString());
    System.out.println();
    System.out.print(table);
  }

  private static void write(Path file, String text) throws IOException {
    Files.writeString(file, text);
  }
}
