package org.apache.pekko.http.impl.engine.parsing

/** What pekko-http's parsers fail with, which it keeps to this package. */
object RapierParsing:
  /** Whether `e` is a parser's refusal of what a client sent. */
  def refused(e: Throwable): Boolean = e.isInstanceOf[ParsingException]
