-- Headless Neovim 0.7 (vim.lsp.start_client) renames an option of a script with
-- vim.lsp.buf.rename() and writes every changed buffer with :wall.
-- Usage (cwd = the workspace copy):
--   EASEL_LS=/path/to/easel-ls RENAME_FROM=--topic RENAME_TO=--subject \
--     nvim --headless -u NONE -i NONE -n -c 'luafile rename.lua' \
--     skills/openclaw/note-digest/scripts/digest.py
-- The cursor goes on the first `add_argument("<RENAME_FROM>"` line (the `collect` subcommand).
-- Prints "ok   - ..." / "FAIL - ..." per check and "ALL OK"; exits 1 when a check failed.
-- The caller checks the files on disk afterwards.
local server = os.getenv("EASEL_LS") or "easel-ls"
local old_name = os.getenv("RENAME_FROM") or "--topic"
local new_name = os.getenv("RENAME_TO") or "--subject"
local root = vim.fn.getcwd()
local skill_md = root .. "/skills/openclaw/note-digest/SKILL.md"
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

local function request(buf, method, params)
  local responses, err = vim.lsp.buf_request_sync(buf, method, params, REQUEST_MS)
  if err then
    out(method .. ": " .. tostring(err))
  end
  for _, response in pairs(responses or {}) do
    if response.error then
      out(method .. " error: " .. vim.inspect(response.error))
    end
    if response.result then
      return response.result
    end
  end
end

local function run()
  vim.cmd("filetype on")
  local buf = vim.api.nvim_get_current_buf()
  if vim.bo[buf].filetype == "" then
    vim.bo[buf].filetype = "python"
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
  if not check(vim.wait(15000, function()
    local client = vim.lsp.get_client_by_id(client_id)
    return client ~= nil and client.initialized == true
  end, 50), "the client initialized") then
    return
  end
  local caps = vim.lsp.get_client_by_id(client_id).server_capabilities
  local renames = check(caps.renameProvider ~= nil and caps.renameProvider ~= false,
    "the server advertises renameProvider: " .. vim.inspect(caps.renameProvider))
  local references = check(caps.referencesProvider ~= nil and caps.referencesProvider ~= false,
    "the server advertises referencesProvider")
  if not (renames and references) then
    return -- nothing below could pass: fail now, not after the timeouts
  end

  -- The cursor inside the option literal of the first add_argument(<old_name>) (collect's).
  local needle = 'add_argument("' .. old_name .. '"'
  local row, col
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local at = line:find(needle, 1, true)
    if at then
      row, col = i - 1, at - 1 + #'add_argument("' + 3
      break
    end
  end
  if not check(row ~= nil, "found " .. needle) then
    return
  end
  vim.api.nvim_win_set_cursor(0, { row + 1, col })

  -- The references of the option (the server may still be indexing: ask until it answers).
  local refs
  vim.wait(20000, function()
    local params = vim.lsp.util.make_position_params()
    params.context = { includeDeclaration = false }
    refs = request(buf, "textDocument/references", params)
    return refs ~= nil and #refs > 0
  end, 200)
  local places = {}
  for _, loc in ipairs(refs or {}) do
    local file = vim.uri_to_fname(loc.uri):sub(#root + 2)
    table.insert(places, string.format("%s:%d", file, loc.range.start.line + 1))
  end
  out("references: " .. table.concat(places, " "))
  check(#places >= 4, "references list the SKILL.md and reference uses (" .. #places .. ")")

  -- prepareRename answers with the option's range or placeholder.
  local prepared = request(buf, "textDocument/prepareRename", vim.lsp.util.make_position_params())
  out("prepareRename: " .. vim.inspect(prepared))
  check(prepared ~= nil, "prepareRename accepts the option")

  -- The rename itself, as a user would run it: the 0.7 handler applies the WorkspaceEdit,
  -- loading the other files into (listed, modified) buffers.
  vim.lsp.buf.rename(new_name)
  local skill_buf
  local edited = vim.wait(20000, function()
    skill_buf = vim.fn.bufnr(skill_md)
    return skill_buf ~= -1 and vim.bo[skill_buf].modified and vim.bo[buf].modified
  end, 50)
  check(edited, "the rename edited the script and SKILL.md buffers")
  local modified = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.bo[b].modified then
      table.insert(modified, vim.fn.bufname(b))
    end
  end
  out("modified buffers: " .. table.concat(modified, " "))

  vim.cmd("wall")
  local unsaved = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.bo[b].modified then
      table.insert(unsaved, vim.fn.bufname(b))
    end
  end
  check(#unsaved == 0, ":wall wrote every changed buffer " .. table.concat(unsaved, " "))
  local on_disk = table.concat(vim.fn.readfile(skill_md), "\n")
  check(on_disk:find("collect " .. new_name .. " ", 1, true) ~= nil,
    "SKILL.md on disk has collect " .. new_name)
end

local ran, err = xpcall(run, debug.traceback)
check(ran, ran and "script ran to the end" or ("script error: " .. tostring(err)))
finish()
