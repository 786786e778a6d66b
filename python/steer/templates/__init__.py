"""Question templates: data files that the generators fill with fresh numbers."""

from steer.templates._load import Template, load_template_file, load_templates, template_files
from steer.templates._model import GradeSpec, TemplateFile, TemplateSpec
from steer.templates._text import PlaceholderError, placeholders, render

__all__ = [
    "GradeSpec",
    "PlaceholderError",
    "Template",
    "TemplateFile",
    "TemplateSpec",
    "load_template_file",
    "load_templates",
    "placeholders",
    "render",
    "template_files",
]
