package rapier.cats

import cats.effect.IO

/**
 * The value inside an `IO.pure`, read without running the `IO`: what lets the interpreter's own steps around logic
 * that answers with `IO.pure` (encoding its output, the exception handler's guard) run at once, as they do around a
 * completed `Future`, and the runner answer without starting cats-effect's run loop at all.
 *
 * cats-effect keeps its `IO` constructors to itself; what `IO.pure` builds is, in every 3.x release, a case class of
 * one field holding the value. That shape is checked once, on an `IO.pure` of a fresh object, when this is loaded: if a
 * release builds `IO.pure` otherwise, no `IO` is ever read as pure and every one runs through cats-effect as before.
 */
private[cats] object PureValue:
  /** What [[of]] answers for an `IO` that is not an `IO.pure`. */
  object NotPure

  private val pureClass: Class[?] | Null =
    val probe = new Object
    IO.pure(probe) match
      case p: Product
          if p.productArity == 1 && p.productPrefix == "Pure" && (p.productElement(0).asInstanceOf[AnyRef] eq probe) =>
        p.getClass
      case _ => null

  /** Whether `IO.pure` values are read here (false: every `IO` runs through cats-effect). */
  val reads: Boolean = pureClass != null

  /** The value of `io` if it is an `IO.pure`, else [[NotPure]]. */
  def of(io: AnyRef): Any =
    if io.getClass eq pureClass then io.asInstanceOf[Product].productElement(0) else NotPure
