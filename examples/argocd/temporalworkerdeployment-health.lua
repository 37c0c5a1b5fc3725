-- Argo CD's health of a TemporalWorkerDeployment, read from the conditions the controller writes
-- (docs/operations.md#conditions): Stalled is Degraded, Ready is Healthy (Degraded while
-- Degraded=True), a rollout under way is Progressing, and a rollout that waits for a person
-- (Manual, paused) is Suspended. Install it as docs/gitops.md says.
local health = { status = "Progressing", message = "Waiting for the controller to report" }
local status = obj.status
if status == nil or status.conditions == nil then
  return health
end
if obj.metadata.generation ~= nil and status.observedGeneration ~= obj.metadata.generation then
  health.message = "Waiting for the controller to see generation " .. tostring(obj.metadata.generation)
  return health
end
local conditions = {}
for _, condition in ipairs(status.conditions) do
  conditions[condition.type] = condition
end
local function holds(type)
  return conditions[type] ~= nil and conditions[type].status == "True"
end
local function says(type)
  local condition = conditions[type]
  if condition == nil then
    return ""
  end
  return (condition.reason or "") .. ": " .. (condition.message or "")
end
if holds("Stalled") then
  health.status = "Degraded"
  health.message = says("Stalled")
elseif holds("Ready") and holds("Degraded") then
  health.status = "Degraded"
  health.message = says("Degraded")
elseif holds("Ready") then
  health.status = "Healthy"
  health.message = says("Ready")
elseif holds("Progressing") then
  health.message = says("Progressing")
elseif conditions.Ready ~= nil and (conditions.Ready.reason == "ManualPromotion" or conditions.Ready.reason == "Paused") then
  health.status = "Suspended"
  health.message = says("Ready")
else
  -- A failure that passes with time (Temporal unreachable, a write refused): the controller retries.
  health.message = says("Ready")
end
return health
