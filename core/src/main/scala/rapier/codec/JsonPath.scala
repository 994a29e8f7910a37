package rapier.codec

import rapier.{Schema, SchemaType, ValidationError}

import java.nio.charset.StandardCharsets.UTF_8
import scala.collection.mutable.ArrayBuffer

/**
 * Where in a JSON document a byte offset falls, as a path of the type's own names (`lines`, `[1]`, `quantity`): what
 * the JSON modules' messages about a document that could not be read name besides the offset. The document is scanned up to the
 * offset, keeping the key or index of each object and array still open there; a key is kept only while it names a
 * field of the schema at its depth, so that a path never quotes what the client sent: a key the type doesn't know, a
 * map's key, a recursive type's reference, ends the path there. Runs only for a document that failed.
 */
private[rapier] object JsonPath:
  /**
   * The path to the value `offset` falls in, in the document `json` holds from `from` to `to`; empty at the top, or
   * where the schema can't follow.
   */
  def at(json: Array[Byte], from: Int, to: Int, offset: Long, schema: Schema[?]): List[String] =
    named(scan(json, from, to, math.min(math.max(offset, from.toLong), to.toLong).toInt), schema)

  /** One level of the path, as the document has it. */
  enum Step:
    case Key(name: String)
    case Index(i: Int)

  /** Where the scan is in a value of an open object or array. */
  private final val Before = 0 // its key (in an object) or its value still to come
  private final val Inside = 1 // a literal or a string begun, not ended
  private final val After = 2 // ended

  /** How many levels of nesting a path names at most. */
  private final val MaxDepth = 64

  private final class Open(val array: Boolean):
    var key: String | Null = null // the key whose value follows, once its ':' is read
    var pendingKey: String | Null = null // a key read, its ':' not yet
    var index = 0
    var state = Before

  /**
   * The keys and indices of the objects and arrays open at `end` in the document from `from` to `to`, outermost first,
   * to a depth of [[MaxDepth]]: deeper ones are counted, not kept, so that a document nested a million deep costs no
   * more than a flat one.
   */
  private def scan(json: Array[Byte], from: Int, to: Int, end: Int): List[Step] =
    val open = ArrayBuffer.empty[Open]
    var deeper = 0 // objects and arrays open below the ones kept
    def top: Open | Null = if open.isEmpty || deeper > 0 then null else open.last
    def entered(): Unit =
      val t = top
      if t != null && t.state == Before then t.state = Inside
    var i = from
    while i < end do
      val b = json(i)
      i += 1
      b match
        case '{' | '[' =>
          entered()
          if open.size < MaxDepth && deeper == 0 then open += Open(array = b == '[') else deeper += 1
        case '}' | ']' =>
          if deeper > 0 then deeper -= 1 else if open.nonEmpty then open.dropRightInPlace(1)
          val t = top
          if t != null then t.state = After
        case ':' =>
          val t = top
          if t != null && !t.array then
            t.key = t.pendingKey
            t.state = Before
        case ',' =>
          val t = top
          if t != null then
            if t.array then t.index += 1
            else
              t.key = null
              t.pendingKey = null
            t.state = Before
        case '"' =>
          val (text, next, closed) = string(json, i, end)
          i = next
          val t = top
          if t != null then
            if !t.array && t.key == null then t.pendingKey = text
            else t.state = if closed then After else Inside
        case ' ' | '\t' | '\n' | '\r' =>
          val t = top
          if t != null && t.state == Inside then t.state = After
        case _ => entered()
    // A literal that the byte at the offset ends (`{"a":1}` failing at its '}') is over, not where the failure is.
    val t = top
    if t != null && t.state == Inside && end < to then
      json(end) match
        case ',' | '}' | ']' => t.state = After
        case _ =>
    open.iterator.flatMap { o =>
      if o.state == After then None
      else if o.array then Some(Step.Index(o.index))
      else Option(o.key).map(k => Step.Key(k.nn))
    }.toList

  /**
   * The string starting at `from` (just after its opening quote), read up to `end`: its text, the index after its
   * closing quote (or `end`), and whether it closed before `end`. Escapes are decoded; an invalid one is kept as is.
   */
  private def string(json: Array[Byte], from: Int, end: Int): (String, Int, Boolean) =
    var i = from
    while i < end && json(i) != '"' do i += (if json(i) == '\\' then 2 else 1)
    val closed = i < end
    val raw = String(json, from, math.min(i, end) - from, UTF_8)
    (unescape(raw), if closed then i + 1 else end, closed)

  private def unescape(raw: String): String =
    if raw.indexOf('\\') < 0 then raw
    else
      val out = StringBuilder()
      var i = 0
      while i < raw.length do
        val c = raw.charAt(i)
        if c != '\\' || i + 1 >= raw.length then
          out.append(c)
          i += 1
        else
          raw.charAt(i + 1) match
            case 'n' => out.append('\n')
            case 't' => out.append('\t')
            case 'r' => out.append('\r')
            case 'b' => out.append('\b')
            case 'f' => out.append('\f')
            case 'u' if i + 6 <= raw.length && raw.substring(i + 2, i + 6).forall(Character.digit(_, 16) >= 0) =>
              out.append(Integer.parseInt(raw.substring(i + 2, i + 6), 16).toChar)
              i += 4
            case other => out.append(other)
          i += 2
      out.toString

  /** The steps the schema can name, in its words; stops at the first it can't. */
  def named(steps: List[Step], schema: Schema[?]): List[String] = steps match
    case Nil => Nil
    case step :: rest =>
      follow(schema, step) match
        case Some((name, next)) => name :: named(rest, next)
        case None => Nil

  private def follow(schema: Schema[?], step: Step): Option[(String, Schema[?])] =
    (schema.schemaType, step) match
      case (SchemaType.SOption(element), _) => follow(element, step)
      case (SchemaType.SArray(element), Step.Index(i)) => Some((ValidationError.index(i), element))
      case (SchemaType.SProduct(fields), Step.Key(k)) => fields.find(_.name == k).map(f => (k, f.schema))
      case (SchemaType.SCoproduct(alternatives, discriminator, _), Step.Key(k)) =>
        if discriminator.contains(k) then Some((k, Schema.string[String]))
        else alternatives.iterator.map(follow(_, step)).collectFirst { case Some(found) => found }
      case _ => None
