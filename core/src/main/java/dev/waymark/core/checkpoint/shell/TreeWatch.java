package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.project.CaptureThreads;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which project paths something touched, from the kernel's file notifications (inotify, through
 * the JDK's watch service), so that a scan after a command re-stats those paths instead of the
 * whole tree, as git's fsmonitor does.
 *
 * <p>Each directory a scan enters is registered before it is listed, so a change is either seen
 * by that listing or reported afterwards. Every touched path gets a sequence number; a scan keeps
 * the number it was taken at ({@link #sync}) and later asks for what was touched since, which costs
 * what was touched since, not all that was touched while the watch ran. A sync
 * writes a cookie file in a directory of the store watched by the same notification queue, and
 * waits for its event: the kernel keeps one queue in order, so every earlier change has arrived.
 *
 * <p>When anything is uncertain (the queue overflowed, a watch could not be added, the cookie did
 * not come back), the watch says so and the caller scans the whole tree instead: a missed
 * notification must never become a missed change. Used on Linux only: elsewhere the JDK polls,
 * which is slower than a scan.
 */
public final class TreeWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TreeWatch.class);
  private static final long COOKIE_WAIT_MILLIS = 2_000;
  /** Touched paths kept (the oldest are forgotten past it, and scans older than them walk the whole tree): bounds its memory. */
  private static final int MAX_TOUCHED = 200_000;
  /** Set to {@code false} (system property) to scan the whole tree at every command. */
  public static final String ENABLED_PROPERTY = "waymark.watch";

  private final Path root;
  private final Path cookies;
  private final WatchService service;
  private final WatchKey cookieKey;
  /** Where each watched directory is now (project-relative): kept here, as a key keeps the path it was registered at. */
  private final Map<WatchKey, String> directories = new HashMap<>();
  /** Each touched path's latest touch, and the same by touch: a scan reads only what came after its mark. */
  private final Map<String, Long> touched = new HashMap<>();
  private final TreeMap<Long, String> byTouch = new TreeMap<>();
  private long sequence;
  private long cookie;
  /** Changes before this sequence may have been missed: scans older than it must not be trusted. */
  private long trustedSince;
  private volatile boolean broken;

  private final int maxTouched;
  /** Threads that register directories ahead of a walk entering them. */
  private final Executor registrars;

  private TreeWatch(Path root, Path cookies, WatchService service, WatchKey cookieKey, int maxTouched,
      Executor registrars) {
    this.maxTouched = maxTouched;
    this.registrars = registrars;
    this.root = root;
    this.cookies = cookies;
    this.service = service;
    this.cookieKey = cookieKey;
  }

  /**
   * A watch of {@code root}, with its cookies in {@code cookies}, registering directories on
   * {@code registrars}; empty where it would not help.
   */
  public static Optional<TreeWatch> start(Path root, Path cookies, Executor registrars) {
    return start(root, cookies, MAX_TOUCHED, registrars);
  }

  /** {@link #start(Path, Path, Executor)} on the process's threads, keeping at most {@code maxTouched} touched paths. */
  public static Optional<TreeWatch> start(Path root, Path cookies, int maxTouched) {
    return start(root, cookies, maxTouched, CaptureThreads.PROCESS.registrars());
  }

  private static Optional<TreeWatch> start(Path root, Path cookies, int maxTouched, Executor registrars) {
    if (!Boolean.parseBoolean(System.getProperty(ENABLED_PROPERTY, "true"))) {
      return Optional.empty();
    }
    WatchService service = null;
    try {
      service = FileSystems.getDefault().newWatchService();
      if (!service.getClass().getName().contains("Linux")) {
        service.close();
        return Optional.empty(); // a polling watch service: slower than scanning
      }
      WaymarkHome.createPrivateDirectories(cookies);
      try (var old = Files.newDirectoryStream(cookies)) {
        for (Path stale : old) {
          Files.deleteIfExists(stale);
        }
      }
      WatchKey cookieKey = cookies.register(service, StandardWatchEventKinds.ENTRY_CREATE);
      return Optional.of(new TreeWatch(root, cookies, service, cookieKey, maxTouched, registrars));
    } catch (IOException | RuntimeException e) {
      LOG.info("no file notifications for {} ({}); each command scans the whole project", root, e.toString());
      if (service != null) {
        try {
          service.close();
        } catch (IOException ignored) {
          // closing what failed to start
        }
      }
      return Optional.empty();
    }
  }

  /**
   * Watches the directory {@code dir} (project-relative, {@code ""} for the root) from now on;
   * call before listing it. A directory that moved keeps its watch, now under its new path.
   */
  public void register(String dir) {
    if (broken) {
      return;
    }
    try {
      // not under the monitor: the kernel call waits for the service's poller thread, and walkers register at once
      WatchKey key = (dir.isEmpty() ? root : root.resolve(dir)).register(service, StandardWatchEventKinds.ENTRY_CREATE,
          StandardWatchEventKinds.ENTRY_DELETE, StandardWatchEventKinds.ENTRY_MODIFY);
      synchronized (this) {
        directories.put(key, dir);
      }
    } catch (NoSuchFileException | NotDirectoryException gone) {
      // gone since it was listed: its parent's notification says so
    } catch (IOException | RuntimeException e) {
      fail("could not watch " + dir + " (" + e.getMessage() + "; see fs.inotify.max_user_watches)");
    }
  }

  /**
   * Starts {@link #register}ing {@code dir} on another thread, for a walk that will enter it soon;
   * the walk waits for it before listing the directory. Registrations then overlap the walk's
   * stat calls, and the poller takes several per wake-up.
   */
  public CompletableFuture<Void> registerSoon(String dir) {
    return CompletableFuture.runAsync(() -> register(dir), registrars);
  }

  /** Stops watching what was below {@code dir}, which is gone or no longer a directory of the project. */
  /**
   * Whether the directory at {@code dir} is watched now. A directory deleted and made again under
   * the same name may get the same inode (ext4 reuses it at once), but its watch went with the
   * old one: only this tells the two apart.
   */
  public synchronized boolean watches(String dir) {
    return directories.containsValue(dir);
  }

  public synchronized void forget(String dir) {
    String below = dir + "/";
    for (Iterator<Map.Entry<WatchKey, String>> it = directories.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<WatchKey, String> e = it.next();
      if (e.getValue().equals(dir) || e.getValue().startsWith(below)) {
        e.getKey().cancel();
        it.remove();
      }
    }
  }

  /**
   * Waits until every change made before this call has been noted, and returns the sequence
   * number that {@link #touchedSince} takes; empty when the watch cannot be trusted any more.
   */
  public synchronized Optional<Long> sync() {
    if (broken) {
      return Optional.empty();
    }
    String name = "c" + (++cookie);
    try {
      WaymarkHome.writePrivate(cookies.resolve(name), new byte[0], false);
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(COOKIE_WAIT_MILLIS);
      boolean seen = false;
      while (!seen && !broken) {
        long left = deadline - System.nanoTime();
        WatchKey key = left <= 0 ? null : service.poll(left, TimeUnit.NANOSECONDS);
        if (key == null) {
          fail("the file notifications did not arrive in time");
          break;
        }
        seen = drain(key, name);
        // keys already signalled hold changes made before the cookie too
        for (WatchKey more = service.poll(); more != null; more = service.poll()) {
          seen |= drain(more, name);
        }
      }
      Files.deleteIfExists(cookies.resolve(name));
    } catch (IOException | ClosedWatchServiceException e) {
      fail("the file notifications failed (" + e + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail("interrupted while waiting for file notifications");
    }
    return broken ? Optional.empty() : Optional.of(sequence);
  }

  /**
   * The paths touched after {@code since} (a number from {@link #sync}); empty when what happened
   * since cannot be known, and the caller must scan the whole tree.
   */
  public synchronized Optional<Set<String>> touchedSince(long since) {
    if (broken || since < trustedSince) {
      return Optional.empty();
    }
    return Optional.of(new HashSet<>(byTouch.tailMap(since, false).values()));
  }

  public boolean working() {
    return !broken;
  }

  /** Processes one signalled key; returns whether it carried the cookie {@code name}. */
  private boolean drain(WatchKey key, String cookieName) {
    boolean seen = false;
    for (WatchEvent<?> event : key.pollEvents()) {
      if (key == cookieKey) {
        seen |= event.context() != null && event.context().toString().equals(cookieName);
        continue;
      }
      if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
        fail("too many file changes at once for the notification queue");
        continue;
      }
      String dir = directories.get(key);
      if (dir == null) {
        continue; // a directory no longer watched
      }
      String name = event.context().toString();
      touch(dir.isEmpty() ? name : dir + "/" + name);
    }
    if (!key.reset() && key != cookieKey) {
      String dir = directories.remove(key);
      if (dir != null) {
        touch(dir); // deleted or unmounted: its parent's scan decides what it became
      }
    }
    if (key == cookieKey && !key.isValid()) {
      fail("the store's own notification directory went away");
    }
    return seen;
  }

  private void touch(String path) {
    Long before = touched.put(path, ++sequence);
    if (before != null) {
      byTouch.remove(before);
    }
    byTouch.put(sequence, path);
    if (touched.size() > maxTouched) {
      // the oldest is forgotten: only a scan from before its touch needs a whole walk now
      Map.Entry<Long, String> oldest = byTouch.pollFirstEntry();
      touched.remove(oldest.getValue());
      trustedSince = oldest.getKey();
    }
  }

  private synchronized void fail(String why) {
    if (!broken) {
      LOG.info("file notifications for {} stopped: {}; commands scan the whole project from now on", root, why);
    }
    broken = true;
  }

  @Override
  public synchronized void close() {
    broken = true;
    try {
      service.close();
    } catch (IOException e) {
      LOG.debug("closing the watch service", e);
    }
  }
}
