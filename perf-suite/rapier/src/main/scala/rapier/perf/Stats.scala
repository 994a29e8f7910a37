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
    val logs = ratios.filter(r => r > 0 && !r.isInfinite).map(math.log)
    val n = logs.size
    if n == 0 then None
    else
      val mean = logs.sum / n
      if n == 1 then Some(Interval(math.exp(mean), math.exp(mean), math.exp(mean), 1))
      else
        val sd = math.sqrt(logs.map(x => (x - mean) * (x - mean)).sum / (n - 1))
        val half = tQuantile975(n - 1) * sd / math.sqrt(n)
        Some(Interval(math.exp(mean), math.exp(mean - half), math.exp(mean + half), n))

  /** Student's t distribution's 97.5th percentile for `df` degrees of freedom (two-sided 95%). */
  def tQuantile975(df: Int): Double =
    if df <= 0 then Double.NaN else if df <= table.length then table(df - 1) else 1.96

  private val table = Array(
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
    2.042
  )

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
