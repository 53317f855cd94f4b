// Render the math that pymdownx.arithmatex (generic mode) leaves in .arithmatex elements.
// document$ is Material's page-load observable: it also fires after instant navigation.
document$.subscribe(({ body }) => {
  body.querySelectorAll(".arithmatex").forEach((el) => {
    const text = el.textContent || "";
    const display = text.startsWith("\\[") || el.tagName === "DIV";
    const tex = text.replace(/^\\[\[(]/, "").replace(/\\[\])]$/, "");
    katex.render(tex, el, { displayMode: display, throwOnError: false });
  });
});
