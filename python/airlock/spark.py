"""airlock on Spark: a ``mapInArrow`` function and Arrow-optimized UDFs.

* :func:`sanitize_in_arrow` returns the function ``DataFrame.mapInArrow`` calls: each
  Arrow record batch's text column goes through :func:`airlock.sanitize_batch` in
  place (no row becomes a Python object), and a reason column is added.
  :func:`sanitize_dataframe` wires it, with the output schema, for one call.
* :func:`sanitize_udf` is a Python UDF with ``useArrow=True`` (Spark hands rows over
  in Arrow; each row is one :func:`airlock.sanitize_prose` call).
* :func:`sanitize_arrow_udf` is a vectorized ``arrow_udf`` (PySpark 4.1 and later):
  a whole ``pyarrow.Array`` per call, the batch path again.

Spark already runs one Python worker per task slot, so the batch functions run on
one thread here unless ``threads=`` says otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Callable, Optional

import airlock


def _check_errors(errors: str) -> None:
    if errors not in ("null", "raise"):
        raise ValueError(f"airlock: errors must be 'null' or 'raise', not {errors!r}")


def sanitize_in_arrow(
    column: str,
    *,
    field: str,
    max_bytes: int,
    profile: str = "reference",
    reason_column: Optional[str] = "reason",
    errors: str = "null",
    threads: Optional[int] = 1,
) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """The function for ``df.mapInArrow(fn, schema)``: replaces ``column`` of each
    batch by its sanitized text (null where rejected) and, unless ``reason_column`` is
    ``None``, appends the rejection reasons as ``reason_column``."""
    _check_errors(errors)

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        for batch in batches:
            at = batch.schema.get_field_index(column)
            if at < 0:
                raise KeyError(f"airlock: no column {column!r} in {batch.schema.names}")
            texts = batch.column(at)
            result = airlock.sanitize_batch(
                texts,
                field=field,
                max_bytes=max_bytes,
                profile=profile,
                errors=errors,
                threads=threads,
            )
            text = result.text.cast(texts.type) if result.text.type != texts.type else result.text
            columns = list(batch.columns)
            columns[at] = text
            names = list(batch.schema.names)
            if reason_column is not None:
                columns.append(result.reason)
                names.append(reason_column)
            yield pa.RecordBatch.from_arrays(columns, names=names)

    return run


def sanitize_dataframe(
    df: Any,
    column: str,
    *,
    field: str,
    max_bytes: int,
    profile: str = "reference",
    reason_column: Optional[str] = "reason",
    errors: str = "null",
    threads: Optional[int] = 1,
) -> Any:
    """``df`` with ``column`` sanitized through ``mapInArrow`` (and a reason column)."""
    from pyspark.sql.types import StringType, StructField, StructType

    fields = list(df.schema.fields)
    if reason_column is not None:
        fields.append(StructField(reason_column, StringType(), True))
    schema = StructType(
        [StructField(f.name, f.dataType, True) if f.name == column else f for f in fields]
    )
    fn = sanitize_in_arrow(
        column,
        field=field,
        max_bytes=max_bytes,
        profile=profile,
        reason_column=reason_column,
        errors=errors,
        threads=threads,
    )
    return df.mapInArrow(fn, schema)


def sanitize_udf(
    *, field: str, max_bytes: int, profile: str = "reference", errors: str = "null"
) -> Any:
    """An Arrow-optimized Python UDF (``useArrow=True``) returning the sanitized text;
    a rejected row is null (``errors="null"``) or fails the task (``"raise"``)."""
    from pyspark.sql.functions import udf
    from pyspark.sql.types import StringType

    _check_errors(errors)

    def sanitize(text: Optional[str]) -> Optional[str]:
        if text is None:
            return None
        try:
            return airlock.sanitize_prose(text, field=field, max_bytes=max_bytes, profile=profile)
        except airlock.RejectionError:
            if errors == "raise":
                raise
            return None

    return udf(sanitize, returnType=StringType(), useArrow=True)


def sanitize_arrow_udf(
    *,
    field: str,
    max_bytes: int,
    profile: str = "reference",
    errors: str = "null",
    threads: Optional[int] = 1,
) -> Any:
    """A vectorized ``arrow_udf`` (PySpark 4.1+): each call sanitizes a whole
    ``pyarrow.Array`` with :func:`airlock.sanitize_batch`."""
    from pyspark.sql.functions import arrow_udf
    from pyspark.sql.types import StringType

    _check_errors(errors)

    import pyarrow as pa

    def sanitize(texts):  # type: ignore[no-untyped-def]
        result = airlock.sanitize_batch(
            texts, field=field, max_bytes=max_bytes, profile=profile, errors=errors, threads=threads
        )
        return result.text.cast(texts.type) if result.text.type != texts.type else result.text

    # arrow_udf reads the kind of UDF from the hints: Array -> Array is a scalar one.
    sanitize.__annotations__ = {"texts": pa.Array, "return": pa.Array}
    return arrow_udf(sanitize, StringType())


__all__ = ["sanitize_arrow_udf", "sanitize_dataframe", "sanitize_in_arrow", "sanitize_udf"]
