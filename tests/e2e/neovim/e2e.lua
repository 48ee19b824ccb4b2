-- Headless Neovim (0.7 API: vim.lsp.start_client) against easel-ls on the fixture workspace.
-- Usage (cwd = the workspace copy):
--   EASEL_LS=/path/to/easel-ls nvim --headless -u NONE -i NONE -n \
--     -c 'luafile e2e.lua' skills/openclaw/card-maker/SKILL.md
-- Prints "ok   - ..." / "FAIL - ..." per check and "ALL OK"; exits 1 when a check failed.
local server = os.getenv("EASEL_LS") or "easel-ls"
local root = vim.fn.getcwd()
local failures = 0
local REQUEST_MS = 10000

local function out(msg) -- print() goes to the message area in --headless, not to stdout
  io.stdout:write(msg .. "\n")
end

local function check(cond, what)
  out((cond and "ok   - " or "FAIL - ") .. what)
  if not cond then
    failures = failures + 1
  end
  return cond
end

local function finish()
  for _, c in pairs(vim.lsp.get_active_clients()) do
    c.stop()
  end
  out(failures == 0 and "ALL OK" or (failures .. " FAILED"))
  vim.cmd(failures == 0 and "qall!" or "cquit!")
end

-- 0-based line and byte column of the first line containing `needle`.
local function find(buf, needle)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local col = line:find(needle, 1, true)
    if col then
      return i - 1, col - 1, line
    end
  end
end

local function request(buf, method, params)
  local responses = vim.lsp.buf_request_sync(buf, method, params, REQUEST_MS) or {}
  for _, response in pairs(responses) do
    if response.error then
      out(method .. " error: " .. vim.inspect(response.error))
    end
    if response.result then
      return response.result
    end
  end
end

local function position_params_at(row, col) -- row 0-based, col in bytes
  vim.api.nvim_win_set_cursor(0, { row + 1, col })
  return vim.lsp.util.make_position_params()
end

-- A Lua error must fail the run at once, not hang until the caller's timeout.
local function run()
  vim.cmd("filetype on")
  local buf = vim.api.nvim_get_current_buf()
  if vim.bo[buf].filetype == "" then
    vim.bo[buf].filetype = "markdown"
  end

  local client_id = vim.lsp.start_client({
    name = "easel-ls",
    cmd = { server },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = "ws" } },
    init_options = { debounceMs = 0 },
    on_exit = function(code)
      if code ~= 0 then
        out("easel-ls exited with " .. code)
      end
    end,
  })
  if not check(client_id ~= nil, "start_client returned an id") then
    return
  end
  vim.lsp.buf_attach_client(buf, client_id)

  -- 1) Diagnostics: CM002 exactly on the drifted option.
  local drift_row, drift_col = find(buf, "--sise")
  local function cm002()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == "CM002" then
        return d
      end
    end
  end
  vim.wait(30000, function()
    return cm002() ~= nil
  end, 50)
  local codes = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(codes, string.format("%s@%d:%d", tostring(d.code), d.lnum, d.col))
  end
  out("diagnostics: " .. table.concat(codes, " "))
  local drift = cm002()
  check(drift ~= nil and drift.lnum == drift_row and drift.col == drift_col,
    string.format("CM002 on line %s, column %s (the --sise option)", drift_row, drift_col))

  -- 2) Code action for that diagnostic: the did-you-mean fix names --size.
  if drift then
    local params = vim.lsp.util.make_range_params()
    local lsp_diags = vim.lsp.diagnostic.get_line_diagnostics(buf, drift_row)
    for _, d in ipairs(lsp_diags) do
      if d.code == "CM002" then
        params.range = d.range
      end
    end
    params.context = { diagnostics = lsp_diags }
    local titles = {}
    for _, action in ipairs(request(buf, "textDocument/codeAction", params) or {}) do
      table.insert(titles, action.title)
    end
    out("code actions: " .. vim.inspect(titles))
    local offered = false
    for _, title in ipairs(titles) do
      offered = offered or title:find("--size", 1, true) ~= nil
    end
    check(offered, "a code action title offers --size")
  end

  -- 3) Completion inside the render command offers render's own --footer.
  local render_row, _, render_line = find(buf, "--theme paper --size 3x4")
  vim.api.nvim_buf_set_lines(buf, render_row, render_row + 1, false, { render_line .. " --fo" })
  local completion = request(buf, "textDocument/completion",
    position_params_at(render_row, #render_line + 4)) or {}
  local labels = {}
  for _, item in ipairs(completion.items or completion) do
    table.insert(labels, item.label)
  end
  out("completion labels: " .. table.concat(labels, " "))
  check(vim.tbl_contains(labels, "--footer"), "completion offers --footer")
  vim.api.nvim_buf_set_lines(buf, render_row, render_row + 1, false, { render_line })

  -- 4) Go to definition on --theme lands on its add_argument line in the script.
  local theme_row, theme_col = find(buf, "--theme paper")
  local result = request(buf, "textDocument/definition", position_params_at(theme_row, theme_col + 3))
  local location = result and (result[1] or result)
  local target_line = ""
  if location and (location.uri or location.targetUri) then
    local range = location.range or location.targetSelectionRange
    local file = vim.uri_to_fname(location.uri or location.targetUri)
    target_line = vim.fn.readfile(file)[range.start.line + 1] or ""
    out(string.format("definition: %s:%d: %s", file, range.start.line + 1, vim.trim(target_line)))
  end
  check(target_line:find('add_argument("--theme"', 1, true) ~= nil,
    "definition of --theme is its add_argument line")
end

local ran, err = xpcall(run, debug.traceback)
check(ran, ran and "script ran to the end" or ("script error: " .. tostring(err)))
finish()
