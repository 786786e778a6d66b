"""The STEER and STEER-ME taxonomies of elements of rationality."""

from steer.taxonomy._load import load_taxonomy, load_taxonomy_files
from steer.taxonomy._model import Element, Module, Setting
from steer.taxonomy._order import element_order
from steer.taxonomy._taxonomy import Subgraph, Taxonomy

__all__ = [
    "Element",
    "Module",
    "Setting",
    "Subgraph",
    "Taxonomy",
    "element_order",
    "load_taxonomy",
    "load_taxonomy_files",
]
