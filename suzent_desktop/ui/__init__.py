
from suzent_desktop.ui.base.qtfix import pin_singletons as _pin_singletons

_pin_singletons()  # PySide6 6.12 on CPython 3.11 under-counts None/True/False; see qtfix.py
