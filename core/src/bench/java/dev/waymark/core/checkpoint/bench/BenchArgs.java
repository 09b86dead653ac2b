package dev.waymark.core.checkpoint.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** The arguments every bench main takes: {@code --sizes=1000,100000} (project sizes) and {@code --out=DIR}. */
record BenchArgs(List<Integer> sizes, Path out) {
  /** {@code args} read, with {@code sizes} and {@code target/bench} where they say nothing; other arguments are the bench's own. */
  static BenchArgs parse(String[] args, List<Integer> sizes) {
    Path out = Path.of("target/bench");
    for (String arg : args) {
      if (arg.startsWith("--sizes=")) {
        sizes = Arrays.stream(arg.substring(8).split(",")).map(String::trim).filter(v -> !v.isEmpty())
            .map(Integer::parseInt).toList();
      } else if (arg.startsWith("--out=")) {
        out = Path.of(arg.substring(6));
      }
    }
    return new BenchArgs(sizes, out);
  }
}
