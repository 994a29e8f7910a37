package rapier.perf.report

/** Charts as inline SVG, so that a report is one self-contained file. */
object Svg:
  /** One bar: a value with its spread over rounds, or a reason there is none (`missing`). */
  final case class Bar(
      label: String,
      value: Double,
      min: Double,
      max: Double,
      color: String,
      text: String,
      missing: Option[String] = None
  )

  /** One line of a line chart. */
  final case class Series(name: String, color: String, values: List[Double])

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
   * Horizontal bars, one per row, with whiskers from min to max and an optional reference line (e.g. 1.0 for
   * ratios to the bare server).
   */
  def bars(bars: List[Bar], reference: Option[(Double, String)] = None, width: Int = 820): String =
    val labelWidth = 230
    val textWidth = 150
    val rowHeight = 26
    val plotWidth = width - labelWidth - textWidth
    val top = if reference.isDefined then 22 else 8
    val height = top + rowHeight * bars.size + 8
    val present = bars.filter(_.missing.isEmpty)
    val maxValue = (present.map(b => math.max(b.value, b.max)) ++ reference.map(_._1 * 1.15)).maxOption.getOrElse(1.0)
    val scale = if maxValue <= 0 then 1.0 else plotWidth / (maxValue * 1.05)
    val body = new StringBuilder
    body.append(
      s"""<svg class="chart" viewBox="0 0 $width $height" width="100%" role="img" xmlns="http://www.w3.org/2000/svg" $font font-size="12">"""
    )
    bars.zipWithIndex.foreach { (b, i) =>
      val y = top + i * rowHeight
      val cy = y + rowHeight / 2
      body.append(
        s"""<text x="${labelWidth - 8}" y="${cy + 4}" text-anchor="end" fill="#1f2937">${escape(b.label)}</text>"""
      )
      b.missing match
        case Some(why) =>
          body.append(s"""<text x="${labelWidth + 4}" y="${cy + 4}" fill="#b91c1c">${escape(why)}</text>""")
        case None =>
          val w = math.max(1.0, b.value * scale)
          body.append(s"""<rect x="$labelWidth" y="${y + 4}" width="${f(w)}" height="${rowHeight -
              8}" rx="3" fill="${b.color}"><title>${escape(s"${b.label}: ${b.text}")}</title></rect>""")
          if b.max > b.min then
            val x1 = labelWidth + b.min * scale
            val x2 = labelWidth + b.max * scale
            body.append(
              s"""<line x1="${f(x1)}" y1="$cy" x2="${f(x2)}" y2="$cy" stroke="#111827" stroke-width="1.2"/>"""
            )
            body.append(s"""<line x1="${f(x1)}" y1="${cy - 5}" x2="${f(x1)}" y2="${cy +
                5}" stroke="#111827" stroke-width="1.2"/>""")
            body.append(s"""<line x1="${f(x2)}" y1="${cy - 5}" x2="${f(x2)}" y2="${cy +
                5}" stroke="#111827" stroke-width="1.2"/>""")
          val tx = labelWidth + math.max(w, b.max * scale) + 6
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
    val right = 200
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
        body.append(s"""<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${points.mkString(
            " "
          )}"><title>${escape(s.name)}</title></polyline>""")
        s.values.zipWithIndex.filter((v, _) => v > 0 && !v.isNaN).foreach { (v, i) =>
          body.append(s"""<circle cx="${f(x(i))}" cy="${f(y(v))}" r="3" fill="${s.color}"><title>${escape(
              f"${s.name} ${categories(i)}: $v%.3f $unit"
            )}</title></circle>""")
        }
        val ly = top + 10 + k * 18
        body.append(s"""<rect x="${left + plotWidth + 16}" y="${ly -
            8}" width="12" height="12" rx="2" fill="${s.color}"/>""")
        body.append(s"""<text x="${left + plotWidth + 34}" y="${ly + 2}" fill="#1f2937">${escape(s.name)}</text>""")
      }
    body.append("</svg>")
    body.toString
