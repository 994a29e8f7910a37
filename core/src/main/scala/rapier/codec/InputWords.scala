package rapier.codec

/**
 * A JSON library's message about a document, without what may have come from the document: quoted parts, and each
 * word of three letters or more that the document holds as a word (a decoder naming the enum case it didn't find,
 * unquoted). For the JSON modules, whose libraries' messages may quote the input; runs only for a document that
 * failed.
 */
private[rapier] object InputWords:
  private val Word = """[\p{L}\p{N}_]+""".r

  def without(message: String, document: String): String =
    val noQuotes = message.replaceAll("'[^']*'|\"[^\"]*\"", "…")
    Word.replaceAllIn(noQuotes, w => if w.matched.length >= 3 && holds(document, w.matched) then "…" else "$0")

  private def holds(document: String, word: String): Boolean =
    def wordChar(i: Int) = i >= 0 && i < document.length && Character.isLetterOrDigit(document.charAt(i))
    var at = document.indexOf(word)
    while at >= 0 && (wordChar(at - 1) || wordChar(at + word.length)) do at = document.indexOf(word, at + 1)
    at >= 0
