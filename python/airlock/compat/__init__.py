"""Drop-ins for other libraries' APIs, computed by airlock (``airlock.compat.llm_guard``)."""
