package rapier.perf

/**
 * A ratio over the rounds of a run: its geometric mean, and the 95% confidence interval of that mean (Student's t on
 * the logarithms of the rounds' ratios, since ratios compose by multiplication). With one round, the interval is the
 * round's ratio itself.
 */
final case class Interval(center: Double, low: Double, high: Double, rounds: Int):
  /** Whether this interval lies wholly inside `band`. */
  def inside(band: Band): Boolean = low >= band.low && high <= band.high

object Interval:
  def of(ratios: List[Double]): Option[Interval] =
    val ls = logs(ratios)
    val n = ls.size
    if n == 0 then None
    else
      val m = mean(ls)
      if n == 1 then Some(point(m))
      else
        val half = tQuantile975(n - 1) * math.sqrt(variance(ls) / n)
        Some(Interval(math.exp(m), math.exp(m - half), math.exp(m + half), n))

  /**
   * The ratio of two servers measured apart (in different groups, minutes from each other): the geometric mean of `a`'s
   * throughputs over the geometric mean of `b`'s, with Welch's 95% interval on the logarithms, since the two samples are
   * independent. It carries what drifted between the two measurements, which paired rounds would have cancelled.
   * `rounds` is the smaller sample's size; with fewer than two values on either side, the ratio alone.
   */
  def between(a: List[Double], b: List[Double]): Option[Interval] =
    val (la, lb) = (logs(a), logs(b))
    if la.isEmpty || lb.isEmpty then None
    else
      val center = mean(la) - mean(lb)
      val n = la.size min lb.size
      if n < 2 then Some(point(center))
      else
        val (va, vb) = (variance(la) / la.size, variance(lb) / lb.size)
        val df =
          (va + vb) *
            (va + vb) /
            (va * va / (la.size - 1) + vb * vb / (lb.size - 1))
        val half = (if df.isNaN then 0.0 else tQuantile975(df.toInt max 1)) * math.sqrt(va + vb)
        Some(Interval(math.exp(center), math.exp(center - half), math.exp(center + half), n))

  /** One ratio alone, from its logarithm: an interval of one point. */
  private def point(log: Double) = Interval(math.exp(log), math.exp(log), math.exp(log), 1)

  private def logs(values: List[Double]) = values.filter(v => v > 0 && !v.isInfinite).map(math.log)
  private[perf] def mean(xs: List[Double]) = xs.sum / xs.size
  private[perf] def variance(xs: List[Double]) =
    val m = mean(xs)
    xs.map(x => (x - m) * (x - m)).sum / (xs.size - 1)

  /** Student's t distribution's 97.5th percentile for `df` degrees of freedom (two-sided 95%). */
  def tQuantile975(df: Int): Double =
    if df <= 0 then Double.NaN else if df <= table.length then table(df - 1) else 1.96

  private val table = Array(
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
    2.042
  )

/**
 * A difference over the rounds of a run, in milliseconds: the mean of the rounds' differences (a library's latency
 * percentile minus its twin's in the same round) and its 95% confidence interval (Student's t). Where a ratio says
 * how many times slower, this says by how much: a percentile of 70 ms at 1.02 is 1.4 ms over.
 */
final case class Difference(meanMs: Double, lowMs: Double, highMs: Double, rounds: Int)

object Difference:
  def of(differences: List[Double]): Option[Difference] =
    val ds = differences.filterNot(d => d.isNaN || d.isInfinite)
    val n = ds.size
    if n == 0 then None
    else
      val m = Interval.mean(ds)
      val half = if n == 1 then 0.0 else Interval.tQuantile975(n - 1) * math.sqrt(Interval.variance(ds) / n)
      Some(Difference(m, m - half, m + half, n))

/**
 * The noise floor of a run, from its A/A ratios — each vanilla twin's second JVM over its first, slice by slice: the
 * 95% confidence interval of their mean, made symmetric around 1.0. Two JVMs of the same server, measured the same
 * way, differ on average by this much on this machine with nothing changed, so no ratio inside it is read as a
 * difference. Like a library's interval, it narrows with more rounds and cycles.
 */
final case class Band(low: Double, high: Double, rounds: Int):
  /** The band's distance from 1.0, as a fraction: 0.03 for a band of ±3%. */
  def halfWidth: Double = math.max(1 - low, high - 1)

object Band:
  def of(aaRatios: List[Double]): Option[Band] =
    Interval.of(aaRatios).map { i =>
      val half = math.max(math.abs(1 - i.low), math.abs(i.high - 1))
      Band(1 - half, 1 + half, i.rounds)
    }

/** A library's ratio to its twin over the rounds, with the twin's A/A band it is read against. */
final case class Compared(interval: Interval, band: Option[Band]):
  /** The interval lies inside the band: no difference from the twin can be claimed. */
  def withinNoise: Boolean = band.exists(interval.inside)

object Compared:
  def of(ratios: List[Double], aaRatios: List[Double]): Option[Compared] =
    Interval.of(ratios).map(Compared(_, Band.of(aaRatios)))
