package rapier.perf.report

/** Charts as inline SVG, so that a report is one self-contained file. */
object Svg:
  /**
   * One bar: a value with its spread over rounds or its confidence interval, or a reason there is none (`missing`);
   * `band`, a range shaded behind the bar's row (its twin's A/A noise floor).
   */
  final case class Bar(
      label: String,
      value: Double,
      min: Double,
      max: Double,
      color: String,
      text: String,
      missing: Option[String] = None,
      band: Option[(Double, Double)] = None
  )

  /** One line of a line chart. */
  final case class Series(name: String, color: String, values: List[Double], dashed: Boolean = false)

  private val font = """font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif""""

  def escape(s: String): String =
    s.flatMap {
      case '<' => "&lt;"
      case '>' => "&gt;"
      case '&' => "&amp;"
      case '"' => "&quot;"
      case '\'' => "&#39;"
      case c => c.toString
    }

  private def f(d: Double): String = f"$d%.1f"

  /**
   * Horizontal bars, one per row, with whiskers from min to max (the rounds' spread, or a confidence interval) and an
   * optional reference line (e.g. 1.0 for ratios to the bare server). The scale follows the bars, not the whiskers: a
   * whisker past the edge (a wide interval from few rounds) is cut there, with an arrow.
   */
  def bars(bars: List[Bar], reference: Option[(Double, String)] = None, width: Int = 820): String =
    val labelWidth = 230
    val textWidth = 150
    val rowHeight = 26
    val plotWidth = width - labelWidth - textWidth
    val top = if reference.isDefined then 22 else 8
    val height = top + rowHeight * bars.size + 8
    val present = bars.filter(_.missing.isEmpty)
    val maxValue =
      (present.map(b => math.max(b.value, math.min(b.max, 1.5 * b.value))) ++
        reference.map(_._1 * 1.15)).maxOption.getOrElse(1.0)
    val scale = if maxValue <= 0 then 1.0 else plotWidth / (maxValue * 1.05)
    val body = new StringBuilder
    body.append(
      s"""<svg class="chart" viewBox="0 0 $width $height" width="100%" role="img" xmlns="http://www.w3.org/2000/svg" $font font-size="12">"""
    )
    val edge = labelWidth + plotWidth.toDouble
    def x(v: Double) = math.min(edge, labelWidth + v * scale)
    bars.zipWithIndex.foreach { (b, i) =>
      val y = top + i * rowHeight
      b.band.foreach { (low, high) =>
        body.append(s"""<rect x="${f(x(low))}" y="${y + 1}" width="${f(math.max(
            1.0,
            x(high) - x(low)
          ))}" height="${rowHeight -
            2}" fill="#fde68a" opacity="0.7"><title>${escape(f"A/A noise band $low%.2f–$high%.2f")}</title></rect>""")
      }
      val cy = y + rowHeight / 2
      body.append(
        s"""<text x="${labelWidth - 8}" y="${cy + 4}" text-anchor="end" fill="#1f2937">${escape(b.label)}</text>"""
      )
      b.missing match
        case Some(why) =>
          body.append(s"""<text x="${labelWidth + 4}" y="${cy + 4}" fill="#b91c1c">${escape(why)}</text>""")
        case None =>
          val w = math.max(1.0, x(b.value) - labelWidth)
          body.append(s"""<rect x="$labelWidth" y="${y + 4}" width="${f(w)}" height="${rowHeight -
              8}" rx="3" fill="${b.color}"><title>${escape(s"${b.label}: ${b.text}")}</title></rect>""")
          if b.max > b.min then
            val x1 = x(b.min)
            val x2 = x(b.max)
            body.append(
              s"""<line x1="${f(x1)}" y1="$cy" x2="${f(x2)}" y2="$cy" stroke="#111827" stroke-width="1.2"/>"""
            )
            body.append(s"""<line x1="${f(x1)}" y1="${cy - 5}" x2="${f(x1)}" y2="${cy +
                5}" stroke="#111827" stroke-width="1.2"/>""")
            body.append(s"""<line x1="${f(x2)}" y1="${cy - 5}" x2="${f(x2)}" y2="${cy +
                5}" stroke="#111827" stroke-width="1.2"/>""")
          if labelWidth + b.max * scale > edge then
            body.append(s"""<path d="M${f(edge - 6)},${cy - 4} L${f(edge)},$cy L${f(edge - 6)},${cy +
                4}" fill="none" stroke="#111827" stroke-width="1.2"/>""")
          val tx = math.max(labelWidth + w, x(b.max)) + 6
          body.append(s"""<text x="${f(tx)}" y="${cy + 4}" fill="#374151">${escape(b.text)}</text>""")
    }
    reference.foreach { (value, label) =>
      val x = labelWidth + value * scale
      body.append(s"""<line x1="${f(x)}" y1="${top - 4}" x2="${f(x)}" y2="${height -
          4}" stroke="#6b7280" stroke-dasharray="4 3"/>""")
      body.append(s"""<text x="${f(x)}" y="12" text-anchor="middle" fill="#6b7280">${escape(label)}</text>""")
    }
    body.append("</svg>")
    body.toString

  /** Lines over categories (latency percentiles), on a logarithmic scale. */
  def lines(categories: List[String], series: List[Series], unit: String, width: Int = 820): String =
    val left = 64
    // The legend's room: its longest name, at about 7 px a character
    val right = math.max(200, series.map(_.name.length).maxOption.getOrElse(0) * 7 + 40)
    val top = 12
    val plotHeight = 220
    val height = top + plotHeight + 34
    val plotWidth = width - left - right
    val values = series.flatMap(_.values).filter(v => v > 0 && !v.isNaN)
    val body = new StringBuilder
    body.append(
      s"""<svg class="chart" viewBox="0 0 $width $height" width="100%" role="img" xmlns="http://www.w3.org/2000/svg" $font font-size="12">"""
    )
    if values.isEmpty then body.append(s"""<text x="$left" y="40" fill="#6b7280">no valid runs</text>""")
    else
      val lo = math.floor(math.log10(values.min))
      val hi = math.max(lo + 1, math.ceil(math.log10(values.max)))
      def y(v: Double) = top + plotHeight - (math.log10(math.max(v, 1e-9)) - lo) / (hi - lo) * plotHeight
      def x(i: Int) = left + (if categories.size <= 1 then 0.0 else i.toDouble * plotWidth / (categories.size - 1))
      (lo.toInt to hi.toInt).foreach { e =>
        val v = math.pow(10, e)
        val yy = y(v)
        body.append(s"""<line x1="$left" y1="${f(yy)}" x2="${left + plotWidth}" y2="${f(yy)}" stroke="#e5e7eb"/>""")
        val label = if e >= 0 then f"${v}%.0f" else BigDecimal(v).bigDecimal.stripTrailingZeros.toPlainString
        body.append(s"""<text x="${left - 6}" y="${f(yy + 4)}" text-anchor="end" fill="#6b7280">$label $unit</text>""")
      }
      categories.zipWithIndex.foreach { (c, i) =>
        body.append(s"""<text x="${f(x(i))}" y="${top + plotHeight + 18}" text-anchor="middle" fill="#374151">${escape(
            c
          )}</text>""")
      }
      series.zipWithIndex.foreach { (s, k) =>
        val points = s.values.zipWithIndex.filter((v, _) => v > 0 && !v.isNaN).map((v, i) => s"${f(x(i))},${f(y(v))}")
        val dash = if s.dashed then " stroke-dasharray=\"5,4\"" else ""
        body.append(s"""<polyline fill="none" stroke="${s.color}" stroke-width="2"$dash points="${points.mkString(
            " "
          )}"><title>${escape(s.name)}</title></polyline>""")
        s.values.zipWithIndex.filter((v, _) => v > 0 && !v.isNaN).foreach { (v, i) =>
          body.append(s"""<circle cx="${f(x(i))}" cy="${f(y(v))}" r="3" fill="${s.color}"><title>${escape(
              f"${s.name} ${categories(i)}: $v%.3f $unit"
            )}</title></circle>""")
        }
        legend(body, left + plotWidth + 16, top + 10 + k * 18, s.name, s.color)
      }
    body.append("</svg>")
    body.toString

  /** A legend entry at (`x`, `y`): a swatch of the series' color, then its name. */
  private def legend(body: StringBuilder, x: Int, y: Int, name: String, color: String): Unit =
    body.append(s"""<rect x="$x" y="${y - 8}" width="12" height="12" rx="2" fill="$color"/>""")
    body.append(s"""<text x="${x + 18}" y="${y + 2}" fill="#1f2937">${escape(name)}</text>""")

  /** One line of an x–y chart: points in the chart's units. */
  final case class XySeries(name: String, color: String, points: List[(Double, Double)])

  /**
   * Lines over a linear x axis (seconds, say; from zero, or from the least x when negative), with vertical marks (the
   * phases of a test) and a legend: the server's CPU or memory over a test, or throughput over a warm-up.
   */
  def xy(series: List[XySeries], xUnit: String, yUnit: String, marks: List[(String, Double)] = Nil, width: Int = 820)
      : String =
    val left = 80
    val right = 210
    val top = 16
    val plotHeight = 180
    val height = top + plotHeight + 34
    val plotWidth = width - left - right
    val xs = series.flatMap(_.points.map(_._1)) ++ marks.map(_._2)
    val ys = series.flatMap(_.points.map(_._2)).filterNot(_.isNaN)
    val body = new StringBuilder
    body.append(
      s"""<svg class="chart" viewBox="0 0 $width $height" width="100%" role="img" xmlns="http://www.w3.org/2000/svg" $font font-size="12">"""
    )
    if ys.isEmpty then body.append(s"""<text x="$left" y="40" fill="#6b7280">no samples</text>""")
    else
      val xMin = math.min(0.0, xs.min)
      val xMax = math.max(xMin + 1e-9, xs.max)
      val yMax = niceCeiling(ys.max)
      def x(v: Double) = left + (v - xMin) / (xMax - xMin) * plotWidth
      def y(v: Double) = top + plotHeight - v / yMax * plotHeight
      (0 to 4).foreach { k =>
        val v = yMax * k / 4
        body.append(s"""<line x1="$left" y1="${f(y(v))}" x2="${left + plotWidth}" y2="${f(y(v))}" stroke="#e5e7eb"/>""")
        body.append(s"""<text x="${left - 6}" y="${f(y(v) + 4)}" text-anchor="end" fill="#6b7280">${trim(v)} ${escape(
            yUnit
          )}</text>""")
      }
      (0 to 5).foreach { k =>
        val v = xMin + (xMax - xMin) * k / 5
        body.append(s"""<text x="${f(x(v))}" y="${top + plotHeight + 16}" text-anchor="middle" fill="#6b7280">${trim(
            v
          )} ${escape(xUnit)}</text>""")
      }
      // A mark's label only where it doesn't run into the previous one's.
      marks.sortBy(_._2).foldLeft(Double.NegativeInfinity) { case (lastLabelled, (label, at)) =>
        body.append(s"""<line x1="${f(x(at))}" y1="$top" x2="${f(x(at))}" y2="${top +
            plotHeight}" stroke="#9ca3af" stroke-dasharray="3 3"><title>${escape(
            f"$label at $at%.1f $xUnit"
          )}</title></line>""")
        if x(at) - lastLabelled > 6.0 * label.length + 8 then
          body.append(
            s"""<text x="${f(x(at) + 3)}" y="${top - 4}" fill="#6b7280" font-size="10">${escape(label)}</text>"""
          )
          x(at)
        else lastLabelled
      }
      series.zipWithIndex.foreach { (s, k) =>
        val points = s.points.filterNot(_._2.isNaN).map((a, b) => s"${f(x(a))},${f(y(b))}").mkString(" ")
        body.append(s"""<polyline fill="none" stroke="${s.color}" stroke-width="1.6" points="$points"><title>${escape(
            s.name
          )}</title></polyline>""")
        legend(body, left + plotWidth + 16, top + 10 + k * 18, s.name, s.color)
      }
    body.append("</svg>")
    body.toString

  /** A round top for an axis, at least `v`: 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten. */
  private def niceCeiling(v: Double): Double =
    if v <= 0 then 1.0
    else
      val magnitude = math.pow(10, math.floor(math.log10(v)))
      List(1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0).map(_ * magnitude).find(_ >= v * 0.9999)
        .getOrElse(10 * magnitude)

  /** An axis label: 150k for 150,000, one decimal below 100. */
  private def trim(v: Double): String =
    if math.abs(v) >= 10000 then f"${v / 1000}%,.0fk"
    else if math.abs(v) >= 100 || v == math.rint(v) then f"$v%,.0f"
    else BigDecimal(v).setScale(1, BigDecimal.RoundingMode.HALF_UP).toString
