package rapier

import scala.compiletime.{constValue, erasedValue, summonInline}

/**
 * Compile-time helpers of the derivations (schemas, forms, multipart codecs, enumerations): a product's field names
 * and its fields' instances, as lists written out where the derivation expands. No tuple is built when the derived
 * value is, and no class of Scala's tuple machinery is loaded for it.
 *
 * The compiler allows 32 successive inlines by default (`-Xmax-inlines`), and walking a tuple one element per step
 * takes one per element: a case class of 33 fields, or an enum of 33 cases, would not derive. So these helpers, and
 * the schema derivation's own walks, take eight elements per step, then one at a time for the rest.
 */
private[rapier] object Derivation:
  /** The names in `Ls` (a mirror's `MirroredElemLabels`), in order. */
  inline def labels[Ls <: Tuple]: List[String] =
    inline erasedValue[Ls] match
      case _: (l1 *: l2 *: l3 *: l4 *: l5 *: l6 *: l7 *: l8 *: ls) =>
        name[l1] :: name[l2] :: name[l3] :: name[l4] :: name[l5] :: name[l6] :: name[l7] :: name[l8] :: labels[ls]
      case _: (l *: ls) => name[l] :: labels[ls]
      case _: EmptyTuple => Nil

  private inline def name[L]: String = constValue[L].asInstanceOf[String]

  /** The given `F` of each type in `Ts` (a mirror's `MirroredElemTypes`), in order. */
  inline def instances[Ts <: Tuple, F[_]]: List[F[Any]] =
    inline erasedValue[Ts] match
      case _: (t1 *: t2 *: t3 *: t4 *: t5 *: t6 *: t7 *: t8 *: ts) =>
        one[F, t1] :: one[F, t2] :: one[F, t3] :: one[F, t4] :: one[F, t5] :: one[F, t6] :: one[F, t7] ::
          one[F, t8] :: instances[ts, F]
      case _: (t *: ts) => one[F, t] :: instances[ts, F]
      case _: EmptyTuple => Nil

  private inline def one[F[_], T]: F[Any] = summonInline[F[T]].asInstanceOf[F[Any]]
