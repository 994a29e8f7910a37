package rapier.perf.common

import one.profiler.{AsyncProfiler, Counter}

import java.nio.file.{Files, Path}
import scala.util.Try

/**
 * async-profiler inside the server JVM, started and stopped by the runner through the control port around a measured
 * window (`./perf --profile`): CPU samples or allocation samples, written as a self-contained HTML flame graph and as
 * collapsed stacks (one line per stack, with its count) for the runner to attribute.
 */
object Profiling:
  private lazy val profiler: Either[String, AsyncProfiler] =
    Try(AsyncProfiler.getInstance()).toEither.left.map(e => s"async-profiler could not load: $e")

  /** Starts profiling `event`: "cpu" (every millisecond of CPU time) or "alloc" (every 512 KiB allocated). */
  def start(event: String): Either[String, String] =
    profiler.flatMap { p =>
      val command = event match
        case "cpu" => Right("start,event=cpu,interval=1ms")
        case "alloc" => Right("start,event=alloc,alloc=512k")
        case other => Left(s"unknown profiling event '$other'")
      command.flatMap(c => Try(p.execute(c)).toEither.left.map(e => s"async-profiler did not start: ${e.getMessage}"))
    }

  /**
   * Stops profiling and writes `<prefix>.html` (the flame graph, by samples for CPU and by bytes for allocations) and
   * `<prefix>.collapsed`; returns the number of samples.
   */
  def stop(prefix: Path, byBytes: Boolean): Either[String, Long] =
    profiler.flatMap { p =>
      Try {
        val counter = if byBytes then Counter.TOTAL else Counter.SAMPLES
        // Dumped while running (a dump does not stop it), then stopped into the flame graph.
        Files.writeString(Path.of(s"$prefix.collapsed"), p.dumpCollapsed(counter))
        val samples = p.getSamples
        p.execute(s"stop,file=$prefix.html${if byBytes then ",total" else ""}")
        samples
      }.toEither.left.map(e => s"async-profiler did not stop cleanly: ${e.getMessage}")
    }
