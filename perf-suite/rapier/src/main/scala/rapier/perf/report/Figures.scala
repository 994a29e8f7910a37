package rapier.perf.report

import rapier.perf.{Band, Compared, Interval, Spread, Summary}

import java.util.Locale

/** How every report writes a ratio beside its noise, so that the terminal, summary.md and report.html read alike. */
object Figures:
  def fmt(pattern: String, value: Double): String = String.format(Locale.ROOT, pattern, value)

  /** `12,345.6`: a figure with thousands grouped and `digits` decimals. */
  def number(d: Double, digits: Int = 0): String = fmt(s"%,.${digits}f", d)

  /** A figure that may be missing: the number, or a dash. */
  def number(d: Option[Double], digits: Int): String = d.fold("–")(number(_, digits))

  /** A second figure set beside a first, ` (123)`: a server's resident memory once started, beside its peak. */
  def beside(d: Option[Double]): String = d.fold("")(v => s" (${number(v)})")

  /** `0.93 [0.89–0.97]`: the geometric mean over rounds and its 95% interval; one round, the ratio alone. */
  def interval(i: Interval): String =
    if i.rounds > 1 then s"${fmt("%.2f", i.center)} [${fmt("%.2f", i.low)}–${fmt("%.2f", i.high)}]"
    else fmt("%.2f", i.center)

  /** A ratio read against its band: "within noise" when its interval lies inside the band, else the interval. */
  def compared(c: Compared): String = if c.withinNoise then "within noise" else interval(c.interval)

  /** `±2.4% [0.98–1.02]`. */
  def band(b: Band): String =
    s"±${fmt("%.1f", b.halfWidth * 100)}% [${fmt("%.2f", b.low)}–${fmt("%.2f", b.high)}]"

  /**
   * A figure of whole runs over the twin's, start by start (a peak of resident memory): `; over 3 starts 1.08
   * [1.02–1.14], A/A ±2.0% [0.98–1.02]`, or nothing with fewer than two starts, where a single ratio says no more than
   * the figures beside it.
   */
  def overStarts(c: Option[Compared]): String = c.filter(_.interval.rounds > 1).fold("") { c =>
    s"; over ${c.interval.rounds} starts ${interval(c.interval)}" + c.band.fold("")(b => s", A/A ${band(b)}")
  }

  /** A warm-up: `9 s` to steady state, or how long it ran without settling. */
  def steady(s: Option[Spread], warmupSeconds: Option[Double]): String = s match
    case Some(x) if x.max > x.min => s"${fmt("%.0f", x.mean)} s (${fmt("%.0f", x.min)}–${fmt("%.0f", x.max)})"
    case Some(x) => s"${fmt("%.0f", x.mean)} s"
    case None => warmupSeconds.fold("–")(w => s"not steady in ${fmt("%.0f", w)} s")

  /** A share of CPU samples, in percent. */
  def share(s: Double): String = s"${fmt("%.1f", s * 100)}%"

  /** A profiled server's share of CPU samples in its library's frames: `12.3% own · 45.6% on stack`, or a dash. */
  def librarySamples(s: Summary): String =
    s.ownCpuShare.fold("–")(o => s"${share(o)} own · ${s.stackCpuShare.fold("–")(share)} on stack")
