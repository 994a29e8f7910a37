package rapier

import scala.compiletime.{constValue, erasedValue, summonInline}

/**
 * Compile-time helpers of the derivations (schemas, forms, multipart codecs): a product's field names and its fields'
 * instances, as lists written out where the derivation expands. No tuple is built when the derived value is, and no
 * class of Scala's tuple machinery is loaded for it.
 */
private[rapier] object Derivation:
  /** The names in `Ls` (a mirror's `MirroredElemLabels`), in order. */
  inline def labels[Ls <: Tuple]: List[String] =
    inline erasedValue[Ls] match
      case _: EmptyTuple => Nil
      case _: (l *: ls) => constValue[l].asInstanceOf[String] :: labels[ls]

  /** The given `F` of each type in `Ts` (a mirror's `MirroredElemTypes`), in order. */
  inline def instances[Ts <: Tuple, F[_]]: List[F[Any]] =
    inline erasedValue[Ts] match
      case _: EmptyTuple => Nil
      case _: (t *: ts) => summonInline[F[t]].asInstanceOf[F[Any]] :: instances[ts, F]
