package rapier.perf.report

import rapier.perf.Summary

/**
 * `--baseline`: each ratio to the bare server compared with an earlier run's. A drop of more than the allowed
 * percentage is a regression; ratios rather than throughputs, since machines and days differ.
 */
object Baseline:
  final case class Regression(key: String, before: Double, after: Double):
    def dropPercent: Double = (before - after) / before * 100
    override def toString: String =
      val Array(server, scenario, users) = key.split('|')
      f"$server · $scenario · $users users: ${before * 100}%.1f%% → ${after * 100}%.1f%% of vanilla (−$dropPercent%.1f%%)"

  /** The regressions, and how many ratios could be compared at all. */
  def compare(baseline: List[Summary], current: List[Summary], maxRegressionPercent: Double): (List[Regression], Int) =
    val before = baseline.flatMap(s => s.ratio.map(r => s.key -> r.mean)).toMap
    val pairs = current.flatMap(s => for r <- s.ratio; b <- before.get(s.key) yield Regression(s.key, b, r.mean))
    (pairs.filter(_.dropPercent > maxRegressionPercent), pairs.size)
