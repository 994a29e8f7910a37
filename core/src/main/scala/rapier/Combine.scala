package rapier

import scala.compiletime.constValue

/**
 * How the values of two inputs (or outputs) combine into one: `Unit` vanishes, a single value is not wrapped, and
 * tuples concatenate. `path[Long]("id") and query[Int]("limit")` is an `EndpointInput[(Long, Int)]`, and
 * `"books" / path[Long]("id")` an `EndpointInput[Long]`.
 *
 * Resolved by givens in order of priority rather than by a match type: a match type can't reduce over an opaque
 * type (it can't be shown to differ from `Unit`), and `path[UserId]` must work. See docs/adr/0001.
 *
 * @tparam A
 *   the value of the first
 * @tparam B
 *   the value of the second
 */
sealed trait Combine[A, B]:
  /** The combined value. */
  type Out

  /** How many values `A` stands for (0 for `Unit`, the size of a tuple, 1 otherwise). */
  def leftArity: Int

  /** How many values `B` stands for. */
  def rightArity: Int

object Combine extends CombineRightUnit:
  type Aux[A, B, O] = Combine[A, B] { type Out = O }

  private[rapier] def instance[A, B, O](left: Int, right: Int): Aux[A, B, O] =
    new Combine[A, B]:
      type Out = O
      val leftArity = left
      val rightArity = right

  given leftUnit[B](using b: Arity[B]): Aux[Unit, B, B] = instance(0, b.value)

private[rapier] trait CombineRightUnit extends CombineTuples:
  given rightUnit[A](using a: Arity[A]): Combine.Aux[A, Unit, A] = Combine.instance(a.value, 0)

private[rapier] trait CombineTuples extends CombineTupleRight:
  given tuples[A <: NonEmptyTuple, B <: NonEmptyTuple](using
      a: Arity[A],
      b: Arity[B]
  ): Combine.Aux[A, B, Tuple.Concat[A, B]] =
    Combine.instance(a.value, b.value)

private[rapier] trait CombineTupleRight extends CombineTupleLeft:
  given tupleRight[A, B <: NonEmptyTuple](using b: Arity[B]): Combine.Aux[A, B, A *: B] = Combine.instance(1, b.value)

private[rapier] trait CombineTupleLeft extends CombineSingles:
  given tupleLeft[A <: NonEmptyTuple, B](using a: Arity[A]): Combine.Aux[A, B, Tuple.Append[A, B]] =
    Combine.instance(a.value, 1)

private[rapier] trait CombineSingles:
  given singles[A, B]: Combine.Aux[A, B, (A, B)] = Combine.instance(1, 1)

/** How many values `A` stands for: 0 for `Unit`, the size of a tuple, 1 for anything else. */
final class Arity[A] private (val value: Int)

object Arity extends ArityOfSingle:
  given unit: Arity[Unit] = of(0)
  inline given tuple[T <: NonEmptyTuple]: Arity[T] = of(constValue[Tuple.Size[T]])
  private[rapier] def of[A](n: Int): Arity[A] = new Arity(n)

private[rapier] trait ArityOfSingle:
  given single[A]: Arity[A] = Arity.of(1)

/** The values `T` stands for, as a tuple: for `mapTo`, which builds a case class from them. */
sealed trait AsTuple[T]:
  type Out <: Tuple
  def arity: Int

object AsTuple extends AsTupleOfSingle:
  type Aux[T, O <: Tuple] = AsTuple[T] { type Out = O }

  private[rapier] def instance[T, O <: Tuple](n: Int): Aux[T, O] =
    new AsTuple[T]:
      type Out = O
      val arity = n

  inline given tuple[T <: NonEmptyTuple]: Aux[T, T] = instance(constValue[Tuple.Size[T]])

private[rapier] trait AsTupleOfSingle:
  given single[T]: AsTuple.Aux[T, T *: EmptyTuple] = AsTuple.instance(1)
