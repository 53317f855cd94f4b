"""Outputs become native Material content: code fences, text blocks, images, sanitised HTML, notices."""

import base64
import re

import markdown
from helpers import code, page

from torchnotes.pages.read import read_page
from torchnotes.publish.render import RenderContext, render_markdown, sanitize

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()


def render(tmp_path, body, outputs, lang="en", cuda=False):
    images = {}

    def sink(name, raw):
        images[name] = raw
        return name

    ctx = RenderContext(lang=lang, device="CPU", cuda=cuda, image_sink=sink, stem="a")
    parsed = read_page(page(tmp_path, "en/a.md", body))
    # Outputs are stored by cell id; the tests list them in cell order for brevity.
    by_id = {cell.id: outs for cell, outs in zip(parsed.code_cells, outputs)}
    return render_markdown(parsed, by_id, ctx), images


def stream(text, name="stdout"):
    return {"output_type": "stream", "name": name, "text": text}


def test_prose_code_and_text_outputs_in_order(tmp_path):
    md, _ = render(tmp_path, "Intro **bold**.\n\n" + code("print('<b>')"), [[stream("<b>\n")]])
    assert md.index("Intro **bold**.") < md.index("```{ .python data-search-exclude }\nprint('<b>')\n```") < md.index('<pre class="nb-stdout" tabindex="0">')
    assert "&lt;b&gt;" in md and "<b>\n" not in md.split("```")[-1]  # output escaped
    assert "In [" not in md and "Out[" not in md


def test_traceback_colours_become_classes(tmp_path):
    error = {"output_type": "error", "ename": "RuntimeError", "evalue": "bad",
             "traceback": ["\x1b[31mRuntimeError\x1b[39m: bad"]}
    md, _ = render(tmp_path, code("x", 'tags=["raises-exception"] raises="RuntimeError"'), [[error]])
    assert '<span class="ansi-red-fg">RuntimeError</span>: bad' in md
    assert "\x1b" not in md and "Expected error" in md


def test_site_packages_paths_are_shortened(tmp_path):
    error = {"output_type": "error", "ename": "E", "evalue": "", "traceback": [
        "File /home/someone/.venv/lib/python3.11/site-packages/torch/nn/functional.py:3494"]}
    md, _ = render(tmp_path, code("x", 'tags=["raises-exception"] raises="E"'), [[error]])
    assert "File site-packages/torch/nn/functional.py:3494" in md and "someone" not in md


def test_images_become_files(tmp_path):
    out = {"output_type": "display_data", "data": {"image/png": PNG, "text/plain": "<Figure size 200x200 with 1 Axes>"}}
    md, images = render(tmp_path, code("plt.show()"), [[out]])
    (name, raw), = images.items()
    assert raw.startswith(b"\x89PNG") and "base64" not in md
    # A Markdown image, so that each generator resolves it against the page's source file like any other link.
    assert f"![Figure size 200x200 with 1 Axes]({name}){{ .nb-image loading=lazy }}" in md
    built = markdown.markdown(md, extensions=["md_in_html", "attr_list"])
    assert re.search(rf'<div class="nb-output"[^>]*>\s*<p><img alt="Figure size 200x200 with 1 Axes" class="nb-image" '
                     rf'loading="lazy" src="{re.escape(name)}" /></p>\s*</div>', built), built


def test_needs_cuda_on_cpu_shows_code_and_notice_only(tmp_path):
    md, _ = render(tmp_path, code("torch.zeros(1, device='cuda')", 'tags=["needs-cuda"]'), [[]])
    assert "```{ .python data-search-exclude }\ntorch.zeros(1, device='cuda')\n```" in md
    assert "needs a CUDA device" in md and "nb-output" not in md


def test_needs_cuda_on_gpu_shows_output(tmp_path):
    md, _ = render(tmp_path, code("x", 'tags=["needs-cuda"]'), [[stream("on gpu\n")]], cuda=True)
    assert "on gpu" in md and "needs a CUDA device" not in md


def test_notice_is_translated(tmp_path):
    md, _ = render(tmp_path, code("x", 'tags=["needs-cuda"]'), [[]], lang="zh")
    assert "此代码单元格需要 CUDA 设备" in md


def test_remove_and_hide_tags(tmp_path):
    body = (code("secret_input()", 'tags=["remove-input"]') + code("quiet()", 'tags=["remove-output"]')
            + code("gone()", 'tags=["remove-cell"]') + code("folded()", 'tags=["hide-input"]')
            + code("long()", 'tags=["hide-output"]'))
    outs = [[stream("shown-1\n")], [stream("hidden-2\n")], [stream("hidden-3\n")], [stream("shown-4\n")], [stream("shown-5\n")]]
    md, _ = render(tmp_path, body, outs)
    assert "secret_input" not in md and "shown-1" in md
    assert "quiet()" in md and "hidden-2" not in md
    assert "gone()" not in md and "hidden-3" not in md
    assert '??? abstract "Code"\n\n    ```{ .python data-search-exclude }\n    folded()' in md and "shown-4" in md
    assert '<details class="nb-details"><summary>Output</summary>' in md and "shown-5" in md


def test_html_outputs_are_sanitised():
    dirty = ('<table><tr><td onclick="x()">1</td></tr></table><script>alert(1)</script>'
             '<img src="x" onerror="alert(2)"><a href="javascript:alert(3)">l</a><a href="https://pytorch.org">ok</a>')
    clean = sanitize(dirty)
    assert "<table>" in clean and "<td>1</td>" in clean
    for bad in ("<script", "onerror", "onclick", "javascript:", "alert(1)"):
        assert bad not in clean
    assert 'href="https://pytorch.org"' in clean


def test_rich_html_output_goes_through_the_sanitiser(tmp_path):
    out = {"output_type": "execute_result", "data": {"text/html": "<b>hi</b><script>bad()</script>", "text/plain": "x"}}
    md, _ = render(tmp_path, code("df"), [[out]])
    assert "<b>hi</b>" in md and "script" not in md


def test_long_outputs_can_be_folded_by_the_reader(tmp_path):
    long = stream("".join(f"line {i}\n" for i in range(50)))
    md, _ = render(tmp_path, code("print_many()"), [[long]])
    assert '<details class="nb-details" open><summary>Output (50 lines)</summary>' in md and "line 49" in md
    short, _ = render(tmp_path, code("print_few()"), [[stream("a\nb\n")]])
    assert "<details" not in short


def test_outputs_are_normalised_for_byte_identical_builds():
    from torchnotes.engine.execute import normalise

    outs = [stream("a\n"), stream("b\n"), stream("/tmp/ipykernel_4242/123456.py:2: UserWarning: w\n", "stderr"),
            stream("c\n")]
    assert normalise(outs) == [stream("a\nb\n"), stream("<cell>:2: UserWarning: w\n", "stderr"), stream("c\n")]


def test_long_traceback_shows_the_cells_frames_and_the_error_with_the_rest_behind_a_fold(tmp_path):
    frames = ["\x1b[31m-----\x1b[39m", "\x1b[31mRuntimeError\x1b[39m    Traceback (most recent call last)",
              "Cell In[1], line 2\n      1 import torch\n----> 2 torch.ones(2, device='meta').item()"]
    frames += [f"File site-packages/torch/inner_{n}.py:{n}, in f{n}()\n" + "\n".join(f"    line {i}" for i in range(6))
               for n in range(8)]
    frames += ["\x1b[31mRuntimeError\x1b[39m: Tensor.item() cannot be called on meta tensors"]
    error = {"output_type": "error", "ename": "RuntimeError", "evalue": "meta", "traceback": frames}
    md, _ = render(tmp_path, code("x", 'tags=["raises-exception"] raises="RuntimeError"'), [[error]])
    short, full = md.split("<details", 1)
    assert "Cell In[1], line 2" in short and "cannot be called on meta tensors" in short
    assert "inner_0.py" not in short and "inner_7.py" in short  # the frame that raised stays
    assert "7 frames inside PyTorch hidden" in short
    assert "Show the full traceback" in full and all(f"inner_{n}.py" in full for n in range(8))


def test_short_traceback_is_shown_whole(tmp_path):
    error = {"output_type": "error", "ename": "E", "evalue": "", "traceback": ["-", "E  Traceback", "Cell In[1]", "E: x"]}
    md, _ = render(tmp_path, code("x", 'tags=["raises-exception"] raises="E"'), [[error]])
    assert "<details" not in md and "Cell In[1]" in md


def test_conversions_are_kept_by_their_text_and_the_unused_ones_forgotten(monkeypatch):
    """A serve session converts each output and paragraph once; what a rebuild no longer shows is dropped."""
    from torchnotes.publish import render as rendering

    calls = []
    real = rendering.ansi2html
    monkeypatch.setattr(rendering, "ansi2html", lambda text: calls.append(text) or real(text))
    conversions = rendering.Conversions()
    coloured = "\x1b[31mred\x1b[0m <tag>"
    assert conversions.ansi_html(coloured) == real(coloured) == conversions.ansi_html(coloured)
    assert conversions.joined("中文\n句子") == rendering.join_cjk_lines("中文\n句子") == "中文句子"
    assert len(calls) == 1
    conversions.forget_unused()  # the end of a build that used both
    conversions.ansi_html(coloured)
    assert len(calls) == 1
    conversions.forget_unused()  # a build that used only the first
    assert set(conversions.kept) == {("ansi", coloured)}
    conversions.forget_unused()  # a build that used neither
    assert conversions.kept == {}


def test_the_error_message_leads_its_traceback_and_the_heading_goes_to_the_fold(tmp_path):
    """Issue 37: `Name: message` first, in a block of its own (the page wraps it), then the cell's frames without
    IPython's rule and right-aligned heading, which only widened the box; the full traceback keeps them."""
    frames = ["\x1b[31m" + "-" * 75 + "\x1b[39m", "\x1b[31mValueError\x1b[39m" + " " * 30 + "Traceback (most recent call last)",
              "Cell In[7], line 1\n----> 1 f()"]
    frames += [f"File site-packages/torch/inner_{n}.py:{n}, in f{n}()\n" + "\n".join(f"    line {i}" for i in range(6))
               for n in range(5)]
    frames += ["\x1b[31mValueError\x1b[39m: expected unspecified sampler option, but got sampler=[0, 1, 2]"]
    error = {"output_type": "error", "ename": "ValueError", "evalue": "expected …", "traceback": frames}
    md, _ = render(tmp_path, code("x", 'tags=["raises-exception"] raises="ValueError"'), [[error]])
    shown, full = md.split("<details", 1)
    message, traceback = shown.split('<pre class="nb-error" tabindex="0">', 1)
    assert '<pre class="nb-error nb-error-message"><span class="nb-error-label">Expected error</span>' in message
    assert '<span class="ansi-red-fg">ValueError</span>: expected unspecified sampler option, but got sampler=[0, 1, 2]</pre>' in message
    assert "Cell In[7], line 1" in traceback and "Traceback (most recent call last)" not in shown and "-----" not in shown
    assert "expected unspecified sampler" not in traceback  # said once, above
    assert "Traceback (most recent call last)" in full and "-" * 75 in full


def test_an_error_without_ipythons_shape_is_summed_up_from_its_name_and_value(tmp_path):
    """A SyntaxError's traceback is one frame that ends in the message after a caret: the summary line is made
    of ename and evalue, and the frame is shown under it."""
    frame = "  Cell In[3], line 1\n    def\n       ^\nSyntaxError: invalid syntax\n"
    error = {"output_type": "error", "ename": "SyntaxError", "evalue": "invalid syntax (3, 1)", "traceback": [frame]}
    md, _ = render(tmp_path, code("x", 'tags=["raises-exception"] raises="SyntaxError"'), [[error]])
    message, rest = md.split('<pre class="nb-error" tabindex="0">', 1)
    assert '<span class="ansi-red-fg">SyntaxError</span>: invalid syntax (3, 1)</pre>' in message
    assert "Cell In[3], line 1" in rest and "<details" not in md


def test_every_shown_code_cell_carries_its_number_and_anchor_outside_the_code(tmp_path):
    body = (code("a = 1") + code("b = 2", 'tags=["remove-cell"]') + code("c = 3", 'tags=["needs-cuda"]')
            + code("print(a)"))
    md, _ = render(tmp_path, body, [[], [], [], [stream("1\n")]])
    anchors = re.findall(r'<div class="nb-cell-number" id="cell-(\d+)"[^>]*><a href="#cell-(\d+)"[^>]*>\[(\d+)\]</a></div>', md)
    assert anchors == [("1", "1", "1"), ("3", "3", "3"), ("4", "4", "4")]  # cell 2 is not shown at all
    fence = md.index("```{ .python data-search-exclude }\nprint(a)")
    assert md.rindex('id="cell-4"', 0, fence) > md.index('id="cell-3"')  # the number comes before its code
    assert "[4]" not in md[fence:md.index("```", fence + 3)]  # not inside the code block: the copy button skips it
    zh, _ = render(tmp_path, body, [[], [], [], [stream("1\n")]], lang="zh")
    assert re.findall(r'id="cell-(\d+)"', zh) == ["1", "3", "4"] and 'aria-label="代码单元格 4"' in zh


def test_a_tracebacks_in_is_the_cells_number_not_the_execution_count(tmp_path):
    """On a CPU build the GPU cells do not run, so IPython counts the cell after two of them as In[2]."""
    frames = ["\x1b[31m-------\x1b[39m", "\x1b[31mValueError\x1b[39m    Traceback (most recent call last)",
              "Cell \x1b[32mIn[1]\x1b[39m, line 1\n----> 1 f()", "Cell \x1b[32mIn[2]\x1b[39m, line 2\n----> 2 raise",
              "\x1b[31mValueError\x1b[39m: boom"]
    error = {"output_type": "error", "ename": "ValueError", "evalue": "boom", "traceback": frames}
    body = (code("def f(): raise ValueError('boom')") + code("x = 1", 'tags=["needs-cuda"]')
            + code("y = 1", 'tags=["needs-cuda"]') + code("f()", 'tags=["raises-exception"] raises="ValueError"'))
    md, _ = render(tmp_path, body, [[], [], [], [error]])
    text = re.sub(r"<[^>]+>", "", md)
    assert "In[1]" in text and "In[4]" in text and "In[2]" not in text
    on_gpu, _ = render(tmp_path, body, [[], [], [], [error]], cuda=True)  # where every cell ran, counts are numbers
    assert "In[2]" in re.sub(r"<[^>]+>", "", on_gpu)
