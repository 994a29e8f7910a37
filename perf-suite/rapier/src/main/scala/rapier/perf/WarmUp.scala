package rapier.perf

/**
 * When a warming server has reached its steady state, read second by second from its throughput and from the time its
 * JIT compilers spent compiling. With the server on one CPU its JIT compiler shares that CPU: a larger stack compiles
 * for longer, so a short fixed warm-up measures the compiler rather than the server, and a throughput that looks
 * settled can still climb when a late compilation lands. How long the climb takes is itself a figure (the cost users
 * feel after every deploy).
 */
object WarmUp:
  /**
   * A warm-up: how long it lasted, when it reached its steady state, its throughput second by second, and the
   * milliseconds its JIT spent compiling in each of those seconds.
   */
  final case class Run(seconds: Int, steadyAfter: Option[Double], series: Vector[Double], compileMs: Vector[Double])

  /** A second in which the JIT compiled for at most this long (5% of it) counts as quiet. */
  val QuietCompileMs = 50.0

  /** Steady: throughput stable (see [[stable]]) and the JIT quiet in the last second, where its time is known. */
  def steady(series: Seq[Double], compileMs: Seq[Double]): Boolean =
    stable(series) && compileMs.lastOption.forall(_ <= QuietCompileMs)

  /** Two slices in a row within 5% of each other. */
  val Agreement = 0.05

  /** A slice counts as steady when within 10% of the level the warm-up settled at. */
  val Tolerance = 0.10

  /** Whether the last two one-second slices agree within [[Agreement]]. */
  def stable(series: Seq[Double]): Boolean =
    series.size >= 2 && {
      val a = series(series.size - 2)
      val b = series.last
      a > 0 && b > 0 && math.abs(a - b) <= Agreement * math.max(a, b)
    }

  /** The level a warm-up settled at: the median of its last three seconds. */
  def level(series: Seq[Double]): Option[Double] =
    Option.when(series.nonEmpty) {
      val last = series.takeRight(3).sorted
      last(last.size / 2)
    }

  /**
   * The seconds of warm-up after which throughput stayed within [[Tolerance]] of its settled level (the median of the
   * last three slices) and the JIT stayed quiet, or None when the warm-up ended unsettled.
   */
  def steadyAfter(series: Seq[Double], compileMs: Seq[Double]): Option[Double] =
    val quietFrom = compileMs.indices.reverse.takeWhile(i => compileMs(i) <= QuietCompileMs).lastOption
      .getOrElse(compileMs.size)
    if compileMs.nonEmpty && quietFrom == compileMs.size then None
    else steadyAfter(series).map(t => math.max(t, quietFrom.toDouble))

  /**
   * The seconds of warm-up after which throughput stayed within [[Tolerance]] of its settled level (the median of the
   * last three slices), or None when the warm-up ended unsettled.
   */
  def steadyAfter(series: Seq[Double]): Option[Double] =
    if series.size < 2 || !stable(series) then None
    else
      val settled = level(series).get
      val inside = (x: Double) => math.abs(x - settled) <= Tolerance * settled
      // The first slice from which every later one is inside the band; a slice lasts one second.
      val firstOfTail = series.indices.reverse.takeWhile(i => inside(series(i))).lastOption.getOrElse(series.size)
      Some(firstOfTail.toDouble)
